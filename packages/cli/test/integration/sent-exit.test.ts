/**
 * Once a message is accepted, every way out of a command carries its log id and exits "sent" (5),
 * never "failed" (1) nor a signal's code: the built bin as a subprocess, against the sandbox.
 * A wait refused (a key without messages.read), a wait timed out, SIGTERM in the middle of the
 * wait and in the middle of the send, send-many --track that cannot read; then refusals that
 * quote a long input, and colour on Node 20 (below engines) with stderr redirected.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnBin } from '../../../bin-kit/test/integration/bin-process.js';

const bin = join(import.meta.dirname, '../../dist/main.js');
const SENDER = '+15550001001';
let sandbox: RunningSandbox;
let keys: RunningSandbox['tenants'][string]['keys'];
let env: Record<string, string>;

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 30, readAfterMs: 60 } });
  const tenant = sandbox.tenants['acme'] as RunningSandbox['tenants'][string];
  keys = tenant.keys;
  env = { TENANT_MESSAGING_BASE_URL: tenant.baseUrl, TENANT_MESSAGING_API_KEY: keys.full, NO_COLOR: '1' };
});
afterAll(() => sandbox?.close());

/** What a run of the bin ended with, and when the signal was sent, if one was. */
type Run = { code: number | null; stdout: string; stderr: string; signalledAt?: number };

/** Runs the bin; SIGTERM once `signalWhen` holds (polled every 10 ms), if given. */
async function cli(args: string[], extraEnv: Record<string, string> = {}, signalWhen?: () => boolean): Promise<Run> {
  const run = spawnBin(bin, args, { ...env, ...extraEnv }, 'ignore');
  let signalledAt: number | undefined;
  const watch =
    signalWhen &&
    setInterval(() => {
      if (!signalWhen()) return;
      clearInterval(watch);
      signalledAt = Date.now();
      run.child.kill('SIGTERM');
    }, 10);
  const code = await run.exit;
  clearInterval(watch);
  return { code, stdout: run.stdout(), stderr: run.stderr(), ...(signalledAt === undefined ? {} : { signalledAt }) };
}

/** The one stored message of this text, and the stdout JSON that must name it. */
function storedOnce(content: string): { id: number } {
  const stored = sandbox.messages('acme').filter((m) => m.content === content);
  expect(stored).toHaveLength(1);
  return stored[0] as { id: number };
}

const polls = () =>
  Object.entries(sandbox.counters.requests)
    .filter(([route]) => route.startsWith('GET /messages/'))
    .reduce((sum, [, n]) => sum + n, 0);

const send = (to: string, content: string, ...more: string[]) => [
  'send',
  '--from',
  SENDER,
  '--to',
  to,
  '--text',
  content,
  '--wait',
  '--json',
  ...more,
];

describe('a failed wait is no failed send: stdout has the log, the exit code is 5 (sent)', () => {
  it.each([
    [
      'refused with 403 (a key without messages.read)',
      SANDBOX_PHONES.reads,
      [],
      'noRead',
      'failed',
      'PermissionDeniedError',
    ],
    [
      'timed out (--timeout 300ms)',
      SANDBOX_PHONES.neverDelivered,
      ['--timeout', '300ms'],
      'full',
      'timeout',
      'DeliveryTimeoutError',
    ],
  ] as const)('the wait %s', async (what, to, more, key, outcome, name) => {
    const content = `Sent, then the wait ${what}`;
    const run = await cli(send(to, content, ...more), { TENANT_MESSAGING_API_KEY: keys[key] });
    expect(run.code, run.stderr).toBe(5);
    const { id } = storedOnce(content);
    expect(JSON.parse(run.stdout)).toMatchObject({
      id,
      content,
      delivery_status: 'sent',
      wait: { until: 'delivered', outcome, error: { name } },
    });
    expect(run.stderr).toContain(`→ Sent: message log ${id} was sent (exit code 5): do not send it again`);
    if (key === 'noRead') expect(run.stderr).toContain('This key lacks the `messages.read` scope');
  });
});

describe('an outcome unknown stays unknown (3) until found', () => {
  it('send --reconcile whose search of the logs is refused (a key without messages.read): 3, not 1', async () => {
    sandbox.faults.clear();
    sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage', times: 1 });
    const args = ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', 'Lost, search refused'];
    const run = await cli([...args, '--reconcile', '--json'], { TENANT_MESSAGING_API_KEY: keys.noRead });
    expect(run.code, run.stderr).toBe(3);
    storedOnce('Lost, search refused');
    expect(run.stderr).toContain(
      'The search did not end (The API key lacks the `messages.read` scope that GET /messages needs (HTTP 403 Forbidden): use a key that has it.).',
    );
    expect(run.stderr).toMatch(/^SendOutcomeUnknownError: /m);
    expect(run.stdout).toBe('');
  });
});

describe('SIGTERM in the middle of send --wait: what was sent is printed, exit 5, at once', () => {
  it('during the wait: the poll stops, the log is printed with wait.outcome interrupted', async () => {
    const before = polls();
    // The next poll 2 minutes off, the timeout 5: a stop that waited for either would show.
    const run = await cli(
      send(SANDBOX_PHONES.neverDelivered, 'Sent, then SIGTERM', '--timeout', '5m', '--interval', '2m'),
      {},
      () => polls() > before,
    );
    expect(run.code, run.stderr).toBe(5);
    const { id } = storedOnce('Sent, then SIGTERM');
    expect(JSON.parse(run.stdout)).toMatchObject({ id, wait: { until: 'delivered', outcome: 'interrupted' } });
    expect(run.stderr).toContain('Interrupted (SIGTERM): stopping.');
    expect(run.stderr).toContain(`→ Sent: message log ${id} was sent (exit code 5)`);
    expect(run.stderr).not.toMatch(/Error/);
    // A ceiling, not a floor, at the test timeout's scale: the stop waits for neither the next
    // poll (2 minutes off) nor the 5 minutes.
    expect(Date.now() - (run.signalledAt as number)).toBeLessThan(30_000);
  });

  it('during the send: it finishes and is printed, nothing new starts (no poll)', async () => {
    sandbox.faults.clear();
    sandbox.faults.add({ kind: 'latency', latencyMs: 800, route: 'sendMessage', times: 1 });
    const injected = sandbox.faults.injected;
    const before = polls();
    const run = await cli(
      send(SANDBOX_PHONES.reads, 'Held, then SIGTERM'),
      {},
      () => sandbox.faults.injected > injected,
    );
    expect(run.code, run.stderr).toBe(5);
    const { id } = storedOnce('Held, then SIGTERM');
    expect(JSON.parse(run.stdout)).toMatchObject({ id, wait: { outcome: 'interrupted' } });
    expect(polls()).toBe(before);
  });
});

describe('send-many --track that cannot read the logs', () => {
  it('every row sent: exit 5, not 1 (which invited sending the file again), and the log ids in the summary', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tm-sent-'));
    const file = join(dir, 'track.csv');
    await writeFile(file, `to,text\n${SANDBOX_PHONES.reads},Batch 1\n${SANDBOX_PHONES.reads},Batch 2\n`);
    const run = await cli(['send-many', '--file', file, '--from', SENDER, '--track', '--json'], {
      TENANT_MESSAGING_API_KEY: keys.noRead,
    }).finally(() => rm(dir, { recursive: true, force: true }));
    expect(run.code, run.stderr).toBe(5);
    const ids = [storedOnce('Batch 1').id, storedOnce('Batch 2').id];
    const summary = JSON.parse(run.stdout) as { sent: number; tracked: unknown; log_ids: number[]; files: object };
    expect(summary).toMatchObject({ sent: 2, failed: 0, tracked: { reached: 0, failed: 2 } });
    expect(summary.files).toEqual({}); // no failed rows' file: nothing to send again
    expect([...summary.log_ids].sort((a, b) => a - b)).toEqual(ids);
  });
});

describe('send-many whose failed rows cannot be written', () => {
  // The documented order (2, 128 + n, 3, 1, 5, 0) holds beside the error: a refused row says 1,
  // as it would with the file written; the error after the sends never hides it behind 5.
  it('the summary with the log ids still comes, then the error; exit 1 for the refused row, as documented', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tm-sent-'));
    const file = join(dir, 'full.csv');
    await writeFile(file, `to,text\n${SANDBOX_PHONES.reads},Written 1\n${SANDBOX_PHONES.reads},\n`);
    // Where the refused row's file goes, a folder: its write fails as on a full disk.
    await mkdir(join(dir, 'full.failed.csv'));
    const run = await cli(['send-many', '--file', file, '--from', SENDER, '--json']).finally(() =>
      rm(dir, { recursive: true, force: true }),
    );
    expect(run.code, run.stderr).toBe(1);
    const { id } = storedOnce('Written 1');
    expect(JSON.parse(run.stdout)).toMatchObject({ sent: 1, failed: 1, log_ids: [id] });
    expect(run.stderr).toMatch(/cannot write .*full\.failed\.csv/);
    expect(run.stderr).toContain(`→ Sent: message log ${id} was sent (exit code 1)`);
  });
});

describe('refusals quote what they were given shortened, on one line', () => {
  it('a 5,012-character value, from the bin and from commander', async () => {
    const long = `+1${'5'.repeat(5_010)}`;
    const shown = `'+1${'5'.repeat(38)}…${'5'.repeat(12)}' (5,012 characters)`;
    const cases = [
      ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', 'x', '--wait', long],
      ['wait', long],
      [long],
    ];
    for (const run of await Promise.all(cases.map((args) => cli(args)))) {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(shown);
      expect(run.stderr.length).toBeLessThan(1_000);
    }
  });
});

describe('colour', () => {
  // System Node below engines (20), when the machine has one: the bin must say so, and behave.
  const node20 = ['/usr/bin/node', '/usr/local/bin/node'].find(
    (path) => existsSync(path) && /^v20\./.test(spawnSync(path, ['-v'], { encoding: 'utf8' }).stdout),
  );
  it.skipIf(node20 === undefined)(
    'no colour codes in redirected stderr on Node 20, NO_COLOR or not; the version named',
    () => {
      for (const extra of [{ NO_COLOR: '1' }, {}]) {
        const childEnv: Record<string, string | undefined> = { ...process.env, ...env, ...extra };
        if (!('NO_COLOR' in extra)) delete childEnv['NO_COLOR'];
        const run = spawnSync(node20 as string, [bin, 'get', 'abc'], { env: childEnv, encoding: 'utf8' });
        expect(run.status).toBe(2);
        expect(run.stderr).toContain('UsageError: ');
        expect(run.stderr).not.toContain('\x1b[');
        expect(run.stderr).toMatch(/Node\.js 20\.\d+\.\d+ is older than the 22\.19 this command requires/);
      }
    },
  );
});
