/**
 * The `tenant-messaging` bin as users run it: the built file, as a subprocess, against the sandbox
 * on loopback. Every command with `--json` parsed and checked against what the sandbox stored,
 * the exit code of each class of outcome, the key never printed, and Ctrl-C.
 * Runs the build: `npm run build` first (`npm test` does).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const bin = join(root, 'dist/main.js');
const SENDER = '+15550001001';

let sandbox: RunningSandbox;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 30, readAfterMs: 60 } });
  dir = await mkdtemp(join(tmpdir(), 'tm-cli-'));
  const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  env = { TENANT_MESSAGING_BASE_URL: tenant.baseUrl, TENANT_MESSAGING_API_KEY: tenant.keys.full };
});
afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(() => sandbox.faults.clear());

interface Run {
  code: number | null;
  /** The signal that ended it, if one did (SIGKILL: the hang guard's). */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the bin with `args`; `onStart` may act on the running child (a signal). */
function cli(
  args: string[],
  extraEnv: Record<string, string> = {},
  onStart?: (stop: () => void, output: () => string) => void,
  killAfterMs = 50_000,
): Promise<Run> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...env, ...extraEnv, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  onStart?.(
    () => child.kill('SIGINT'),
    () => stdout,
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
}

const json = (run: Run) => JSON.parse(run.stdout) as Record<string, unknown>;
const text = ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text'];

describe('tenant-messaging (the command line)', () => {
  it('send --json prints the stored log on stdout, nothing else; the sandbox stored it once', async () => {
    const run = await cli([...text, 'Your code is 1234', '--json']);
    expect(run.code).toBe(0);
    const log = json(run);
    expect(log).toMatchObject({ id: expect.any(Number), content: 'Your code is 1234', message_type: 'text' });
    expect(sandbox.messages('acme').filter((m) => m.content === 'Your code is 1234')).toHaveLength(1);
  });

  it('send a document from a path with a caption, by sender id, and --wait read follows it to read', async () => {
    const file = join(dir, 'receipt.pdf');
    await writeFile(file, Buffer.alloc(3000, 1));
    const run = await cli([
      'send',
      '--from',
      '1',
      '--to',
      SANDBOX_PHONES.reads,
      '--document',
      file,
      '--caption',
      'Your receipt',
      '--wait',
      'read',
      // Polled often: the sandbox reads it after 60 ms, the default first wait is 2 s.
      '--interval',
      '50ms',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(json(run)).toMatchObject({
      message_type: 'document',
      content: 'Your receipt',
      delivery_status: 'read',
      wait: { until: 'read', outcome: 'reached' },
    });
    // The status lines go to stderr, one per change when stderr is not a terminal: the send's
    // status once (sent, or already delivered on a busy machine: the sandbox delivers in 30 ms),
    // and the one waited for only in the result (stdout), not twice.
    const [first = '', ...rest] = run.stderr.split('\n');
    const sentAs = /^sent: message log \d+: document, (sent|delivered)$/.exec(first)?.[1];
    expect(sentAs, run.stderr).toBeDefined();
    expect(rest.join('\n')).not.toMatch(new RegExp(`message log \\d+: ${sentAs}`));
    expect(run.stderr).not.toMatch(/: read/);
  });

  it('get, list, me, usage, senders, lookup and request answer with what the API answered', async () => {
    const sent = json(await cli([...text, 'For reading', '--json']));
    // Reads alone from here: the bins run side by side.
    const [got, listed, ndjson, lookup, raw, sendersRun, me, usage, subscription] = await Promise.all([
      cli(['get', String(sent['id']), '--json']),
      cli(['list', '--limit', '2', '--json']),
      cli(['list', '--limit', '3', '--ndjson']),
      cli(['lookup', SANDBOX_PHONES.reads, '--from', SENDER, '--json']),
      cli(['request', 'GET', `/messages/${sent['id']}`, '--json']),
      cli(['senders', '--json']),
      cli(['me', '--json']),
      cli(['usage', '--json']),
      cli(['subscription', '--json']),
    ]);
    expect(json(got)).toMatchObject({ id: sent['id'], content: 'For reading' });

    const logs = JSON.parse(listed.stdout) as { id: number }[];
    expect(logs).toHaveLength(2);
    expect(
      ndjson.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: number }).id),
    ).toHaveLength(3);

    for (const [command, run] of Object.entries({ me, usage, subscription })) {
      expect(run.code, command).toBe(0);
      expect(typeof json(run), command).toBe('object');
    }
    const senders = JSON.parse(sendersRun.stdout) as { phone: string }[];
    expect(senders.map((n) => n.phone)).toContain(SENDER);
    expect(lookup.code).toBe(0);
    expect(json(raw)).toMatchObject({ data: { id: sent['id'] } });
  });

  it('sandbox starts the local sandbox on loopback and stops on Ctrl-C', async () => {
    // Ctrl-C once it listens, however slowly the bin started.
    const run = await cli(['sandbox', '--port', '0', '--rate-limit', '50/s'], {}, (stop, output) => {
      const poll = setInterval(() => {
        if (!/listening on/.test(output())) return;
        clearInterval(poll);
        stop();
      }, 20);
    });
    expect(run.stdout).toMatch(/Tenant Messaging sandbox listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(run.stdout).toMatch(/Rate limit: 50 per second per key/);
    expect(run.stdout).toMatch(/SIGINT: stopping the sandbox/);
    expect(run.code).toBe(0);
  });

  it('sandbox stops on a Ctrl-C at any moment of its start, never left running', async () => {
    // Before the bin's modules have loaded, while they load, and as the server starts. A signal
    // before Node runs any of the bin ends it by the default action (no code, signal SIGINT).
    const runs = await Promise.all(
      [0, 60, 100, 150, 200, 300, 600].map(async (delay) => {
        // The moment is what varies: a delay from the spawn, not a wait for an output.
        const run = await cli(['sandbox', '--port', '0'], {}, (stop) => setTimeout(stop, delay), 50_000);
        return { delay, ...run };
      }),
    );
    for (const run of runs) {
      expect([0, 130, null], `Ctrl-C after ${run.delay} ms: ${run.stdout}`).toContain(run.code);
      // Ended by the Ctrl-C (its handler, or the default action before it), never by the hang
      // guard's SIGKILL at 50 s: nothing was left running.
      expect(run.signal, `Ctrl-C after ${run.delay} ms: ${run.stdout}`).toBe(run.code === null ? 'SIGINT' : null);
    }
  }, 60_000);

  it('--verbose logs each request on stderr, never the key; stdout keeps only the data', async () => {
    const run = await cli(['--verbose', 'me', '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\[debug\] .*GET/);
    expect(typeof json(run)).toBe('object');
    expect(run.stderr + run.stdout).not.toContain(env['TENANT_MESSAGING_API_KEY'] as string);
  });

  it('a table for people: the header and one row per log', async () => {
    await cli([...text, 'In a table']);
    const run = await cli(['list', '--limit', '1']);
    const [header, row] = run.stdout.trim().split('\n');
    expect(header).toMatch(/^id\s+message_type\s+delivery_status/);
    expect(row).toMatch(/In a table$/);
  });
});

describe('exit codes', () => {
  it('1 for a failure the API reported (a 403), with the class and the scope the key lacks; the key is never printed', async () => {
    const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
    const keyFile = join(dir, 'no-send.key');
    await writeFile(keyFile, `${tenant.keys.noSend}\n`);
    const run = await cli([...text, 'Denied', '--api-key-file', keyFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^PermissionDeniedError: /);
    expect(run.stderr).toMatch(/\n→ This key lacks the `messages\.send` scope: use a key that has it\.\n$/);
    expect(run.stdout).toBe('');
    for (const key of Object.values(tenant.keys)) expect(run.stderr + run.stdout).not.toContain(key);
  });

  it('2 for bad usage, before any request, with the help of the command run: a missing kind, a bad --wait, a bad duration, --api-key', async () => {
    const before = sandbox.requestLog.acceptedAt({ tenant: 'acme' }).length;
    const cases = [
      ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads],
      [...text, 'x', '--image', 'a.png'],
      [...text, 'x', '--wait', 'soon'],
      ['wait', '1', '--timeout', 'soon'],
      ['get', 'abc'],
      ['send', '--to', SANDBOX_PHONES.reads, '--text', 'no sender'],
      ['me', '--api-key', 'tm_live_secret'],
      // The SDK's own ValidationError (an empty text), before any request.
      [...text, ''],
    ];
    const runs = await Promise.all(cases.map((args) => cli(args)));
    for (const [i, args] of cases.entries()) {
      const run = runs[i] as Run;
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout, args.join(' ')).toBe('');
      expect(run.stderr, args.join(' ')).not.toContain('tm_live_secret');
      // The help named is the command's, and no placeholder is printed as it is (test/integration/messages-shell-usage.test.ts has the rest).
      expect(run.stderr, args.join(' ')).toContain(`→ See \`tenant-messaging ${args[0]} --help\`.`);
      expect(run.stderr, args.join(' ')).not.toMatch(/<[^<>\s]+>/);
    }
    expect(sandbox.requestLog.acceptedAt({ tenant: 'acme' }).length).toBe(before);
    const empty = await cli([...text, '']);
    // The SDK's field (content) named by the flag that set it.
    expect(empty.stderr).toMatch(/^ValidationError: Invalid send parameters:\n {2}- --text: must not be empty\n/);
  });

  it('3 for an outcome unknown, with the reconcile advice; --reconcile finds the stored send and exits 0', async () => {
    sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage', times: 1 });
    const lost = await cli([...text, 'Lost answer']);
    expect(lost.code).toBe(3);
    expect(lost.stderr).toMatch(/^SendOutcomeUnknownError: /);
    expect(lost.stderr).toMatch(/--reconcile/);

    sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage', times: 1 });
    const found = await cli([...text, 'Lost then found', '--reconcile', '--json']);
    expect(found.code).toBe(0);
    expect(json(found)).toMatchObject({ content: 'Lost then found' });
    expect(sandbox.messages('acme').filter((m) => m.content === 'Lost then found')).toHaveLength(1);
  });

  it('5 (sent) for a delivery timeout of send --wait, naming --timeout and the log to look at again', async () => {
    const never = ['send', '--from', SENDER, '--to', SANDBOX_PHONES.neverDelivered, '--text', 'Never delivered'];
    const run = await cli([...never, '--wait', '--timeout', '300ms']);
    expect(run.code).toBe(5);
    const id = /sent: message log (\d+)/.exec(run.stderr)?.[1];
    // stdout says it too: what was sent, and that its delivery was not confirmed.
    expect(run.stdout).toBe(`sent: message log ${id}: text, sent (delivered not confirmed: timeout)\n`);
    expect(run.stderr).toMatch(/DeliveryTimeoutError: Message log \d+ did not reach 'delivered' within 300 ms\. /);
    expect(run.stderr).toContain(
      `→ The message was sent; its delivery was not confirmed in time. Look again later with \`tenant-messaging wait ${id}\` or \`tenant-messaging get ${id}\`, or raise --timeout.`,
    );
  });

  it('0 for Ctrl-C during a send, which lets the send finish and reports it (stored once): it was sent', async () => {
    sandbox.faults.add({ kind: 'latency', latencyMs: 1_000, route: 'sendMessage', times: 1 });
    const before = sandbox.faults.injected;
    // Ctrl-C once the service holds the send (the fault is counted when it starts holding).
    const whenHeld = (stop: () => void) => {
      const check = () => (sandbox.faults.injected > before ? stop() : setTimeout(check, 20));
      check();
    };
    const run = await cli([...text, 'Held then interrupted', '--json'], {}, whenHeld);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/Interrupted \(Ctrl-C\): stopping/);
    expect(json(run)).toMatchObject({ content: 'Held then interrupted' });
    expect(sandbox.messages('acme').filter((m) => m.content === 'Held then interrupted')).toHaveLength(1);
  });

  it('130 for Ctrl-C in the middle of a wait, which stops at once and leaves nothing running', async () => {
    const sent = json(
      await cli(['send', '--from', SENDER, '--to', SANDBOX_PHONES.neverDelivered, '--text', 'x', '--json']),
    );
    // Ctrl-C once the wait is polling (its first read reached the service), however slowly the bin started.
    const polls = () =>
      Object.entries(sandbox.counters.requests)
        .filter(([route]) => route.startsWith('GET /messages/'))
        .reduce((sum, [, n]) => sum + n, 0);
    const before = polls();
    let stoppedAt = 0;
    // The next poll 2 minutes off: a stop that waited for it, or for the timeout, would show.
    const run = await cli(['wait', String(sent['id']), '--timeout', '5m', '--interval', '2m'], {}, (stop) => {
      const waiting = setInterval(() => {
        if (polls() === before) return;
        clearInterval(waiting);
        stoppedAt = Date.now();
        stop();
      }, 10);
    });
    expect(run.code).toBe(130);
    expect(run.stderr).toMatch(/Interrupted/);
    // The stop is said once: the wait's own abort is no error to report after it.
    expect(run.stderr).not.toMatch(/Error/);
    // At once: far under the 2 minutes to the next poll (a bound at the test timeout's scale).
    expect(Date.now() - stoppedAt).toBeLessThan(30_000);
    expect(run.signal).toBeNull();
  });
});
