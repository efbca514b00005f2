/**
 * `tenant-messaging listen --forward-to <url>`, the built bin as a subprocess against the sandbox,
 * forwarding to a real receiver on loopback that verifies every request with the reference
 * `standardwebhooks` package: a message sent once listen is ready arrives as `message.sent`, then
 * `message.delivered`, then `message.read`, with webhook-ids `msg_<id>_<status>`; history is not
 * replayed; a 500 is retried with the same webhook-id; a 410 ends it (exit 1); the secret from the environment signs and
 * is never printed, a generated one is printed once and signs; Ctrl-C ends with 130 and a summary;
 * bad usage exits 2 before any request. Runs the build (`npm test` builds first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { MessagingClient } from 'tenant-messaging';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import type { WebhookEvent } from 'tenant-messaging/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/helpers/server.js';

const bin = join(import.meta.dirname, '../../dist/main.js');
const SECRET_ENV = 'TENANT_MESSAGING_WEBHOOK_SECRET';
let sandbox: RunningSandbox;
let client: MessagingClient;
let env: Record<string, string>;
const servers: TestServer[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 300, readAfterMs: 700 } });
  const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  env = { TENANT_MESSAGING_BASE_URL: tenant.baseUrl, TENANT_MESSAGING_API_KEY: tenant.keys.full, NO_COLOR: '1' };
  client = new MessagingClient({ baseUrl: tenant.baseUrl, apiKey: tenant.keys.full });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await client?.close();
  await Promise.all(servers.map((s) => s.close()));
  await sandbox?.close();
});

const send = (content: string) =>
  client.messages.send({ sender_phone: '+15550001001', to_phone: SANDBOX_PHONES.reads, type: 'text', content });

/** Waits until `done()` or 10 s: every wait in this file is bounded. */
const until = async (done: () => boolean) => {
  const deadline = Date.now() + 10_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
};

/** What the receiver saw: each attempt, its answer, and whether the reference package verified it. */
interface Arrival {
  readonly id: string;
  readonly body: string;
  readonly answered: number;
  readonly event: WebhookEvent | undefined;
}

/**
 * A receiver on 127.0.0.1 that verifies each request with `secret()` (the secret may be known only
 * once listen has printed it) and answers `answer(n)` to the n-th request.
 */
async function receiver(secret: () => string, answer: (n: number) => number = () => 200) {
  const arrivals: Arrival[] = [];
  const server = await startServer((req, res, n) => {
    const body = req.body.toString('utf8');
    let event: WebhookEvent | undefined;
    try {
      event = new Webhook(secret()).verify(body, req.headers as Record<string, string>) as WebhookEvent;
    } catch {
      event = undefined;
    }
    const answered = answer(n);
    arrivals.push({ id: String(req.headers['webhook-id']), body, answered, event });
    res.writeHead(answered).end();
  });
  servers.push(server);
  return { url: `${server.url}/hooks`, arrivals };
}

/** The bin's `listen` as a running child: its output so far, a wait for its ready line, and Ctrl-C. */
function listen(args: string[], extraEnv: Record<string, string | undefined> = {}) {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env, ...extraEnv };
  for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name];
  const child = spawn(process.execPath, [bin, 'listen', '--interval', '100ms', ...args], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const run = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk));
  const guard = setTimeout(() => child.kill('SIGKILL'), 50_000);
  const closed = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve(code);
    }),
  );
  return {
    run,
    closed,
    ready: () => until(() => /Ready\./.test(run.stderr) || child.exitCode !== null),
    interrupt: () => {
      child.kill('SIGINT');
      return closed;
    },
  };
}

/** The verified events about one log, in the order they first arrived. */
const eventsOf = (arrivals: readonly Arrival[], logId: number) => {
  const seen = new Map<string, WebhookEvent>();
  for (const a of arrivals) if (a.event?.data.log_id === logId && !seen.has(a.id)) seen.set(a.id, a.event);
  return [...seen].map(([id, event]) => ({ id, type: event.type }));
};

describe('listen --forward-to', () => {
  it('forwards what happens after it is ready, signed with TENANT_MESSAGING_WEBHOOK_SECRET (never printed), not the history; Ctrl-C ends it with 130 and a summary', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const before = await send('Before listen');
    // Settled before listen starts: nothing about it may be forwarded.
    await until(() => sandbox.messages('acme').find((m) => m.id === before.id)?.delivery_status === 'read');
    const hooks = await receiver(() => secret);
    const child = listen(['--forward-to', hooks.url], { [SECRET_ENV]: secret });
    await child.ready();
    expect(child.run.stderr).toContain(`Ready. Forwarding to ${hooks.url}, signed with the secret from ${SECRET_ENV}.`);

    const fresh = await send('After listen');
    await until(() => hooks.arrivals.some((a) => a.id === `msg_${fresh.id}_read`));
    const code = await child.interrupt();

    expect(code).toBe(130);
    expect(hooks.arrivals.every((a) => a.event !== undefined)).toBe(true);
    expect(eventsOf(hooks.arrivals, fresh.id)).toEqual(
      ['sent', 'delivered', 'read'].map((status) => ({ id: `msg_${fresh.id}_${status}`, type: `message.${status}` })),
    );
    expect(hooks.arrivals.some((a) => a.event?.data.log_id === before.id)).toBe(false);
    // A line per attempt, as each answer comes (attempts run at once: sorted to compare).
    expect(child.run.stdout.trim().split('\n').sort()).toEqual(
      ['delivered', 'read', 'sent'].map((s) => `message.${s}`.padEnd(17) + `  msg_${fresh.id}_${s}  -> 200`),
    );
    expect(child.run.stderr).toMatch(/Stopped: 3 events forwarded, 3 delivered, 0 gave up\./);
    expect(child.run.stdout + child.run.stderr).not.toContain(secret);
    expect(child.run.stdout + child.run.stderr).not.toContain(secret.slice('whsec_'.length));
  }, 20_000);

  it('without a secret, the one it prints on stderr verifies the events; a 500 gets a retry with the same webhook-id; --events and --ndjson', async () => {
    let printed = '';
    const hooks = await receiver(
      () => printed,
      (n) => (n === 0 ? 500 : 200),
    );
    const child = listen(['--forward-to', hooks.url, '--events', 'message.sent,message.read', '--ndjson'], {
      [SECRET_ENV]: undefined,
    });
    await child.ready();
    printed = /Your webhook signing secret is (whsec_\S+) \(set TENANT_MESSAGING_WEBHOOK_SECRET to keep it\)/.exec(
      child.run.stderr,
    )?.[1] as string;
    expect(printed).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const fresh = await send('After listen, no secret given');
    const answered = (id: string) => hooks.arrivals.some((a) => a.id === id && a.answered === 200);
    await until(() => answered(`msg_${fresh.id}_sent`) && answered(`msg_${fresh.id}_read`));
    const code = await child.interrupt();

    expect(code).toBe(130);
    expect(hooks.arrivals.every((a) => a.event !== undefined)).toBe(true);
    const [first, ...rest] = hooks.arrivals;
    expect(first).toMatchObject({ id: `msg_${fresh.id}_sent`, answered: 500 });
    const retry = rest.find((a) => a.id === first?.id);
    expect(retry).toMatchObject({ answered: 200, body: first?.body });
    // message.delivered is not among --events: neither sent nor printed.
    expect(eventsOf(hooks.arrivals, fresh.id).map((e) => e.type)).toEqual(['message.sent', 'message.read']);
    const lines = child.run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; webhook_id: string; status: number; outcome: string });
    // One line per attempt: the 500 (retrying) first, then the retry and the read, delivered in
    // either order (the retry waits a random share of a second; the read comes when it comes).
    const attempts = lines.map((l) => [l.webhook_id, l.status, l.outcome]);
    expect(attempts[0]).toEqual([`msg_${fresh.id}_sent`, 500, 'retrying']);
    expect(attempts.slice(1).sort()).toEqual([
      [`msg_${fresh.id}_read`, 200, 'delivered'],
      [`msg_${fresh.id}_sent`, 200, 'delivered'],
    ]);
    expect(child.run.stderr).toMatch(/Stopped: 2 events forwarded, 2 delivered, 0 gave up\./);
    // Printed once, at the start.
    expect(child.run.stderr.split(printed)).toHaveLength(2);
  }, 20_000);

  it('an endpoint that answers 410 Gone ends it: exit 1, nothing sent after the 410', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const hooks = await receiver(
      () => secret,
      () => 410,
    );
    const child = listen(['--forward-to', hooks.url], { [SECRET_ENV]: secret });
    await child.ready();
    const fresh = await send('To a gone endpoint');
    const code = await child.closed;
    expect(code).toBe(1);
    expect(hooks.arrivals).toHaveLength(1);
    expect(hooks.arrivals[0]).toMatchObject({ id: `msg_${fresh.id}_sent`, answered: 410 });
    expect(child.run.stdout.trim()).toBe(`${'message.sent'.padEnd(17)}  msg_${fresh.id}_sent  -> 410 (disabled)`);
    expect(child.run.stderr).toContain(`Stopped: ${hooks.url} answered 410 Gone, so nothing more is sent to it.`);
  }, 20_000);

  it('bad usage exits 2 before any request: an http URL to another host, a bad URL, a bad --events, an unreadable --secret-file, --secret, a bad secret', async () => {
    const hooks = await receiver(() => '');
    const requests = sandbox.requestLog.total;
    const onCommandLine = `whsec_${randomBytes(24).toString('base64')}`;
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--forward-to', 'http://example.com/x'], {}, /--forward-to: plain http .*--allow-insecure-http/],
      [['--forward-to', 'not a url'], {}, /--forward-to: must be an absolute http\(s\) URL/],
      [['--forward-to', hooks.url, '--events', 'message.sent,message.bogus'], {}, /--events: .*'message\.bogus'/],
      [['--forward-to', hooks.url, '--interval', 'soon'], {}, /--interval must look like/],
      [['--forward-to', hooks.url, '--secret-file', '/nonexistent/hooks.secret'], {}, /--secret-file: cannot read/],
      [['--forward-to', hooks.url, '--secret', onCommandLine], {}, /--secret is refused/],
      [['--forward-to', hooks.url], { [SECRET_ENV]: 'not base64!' }, /TENANT_MESSAGING_WEBHOOK_SECRET: must be/],
    ];
    for (const [args, extraEnv, said] of cases) {
      const child = listen(args, extraEnv);
      const code = await child.closed;
      expect(code, args.join(' ')).toBe(2);
      expect(child.run.stdout, args.join(' ')).toBe('');
      expect(child.run.stderr, args.join(' ')).toMatch(said);
      expect(child.run.stderr).not.toContain(onCommandLine);
      expect(child.run.stderr).not.toContain('not base64!');
    }
    expect(sandbox.requestLog.total).toBe(requests);
    expect(hooks.arrivals).toHaveLength(0);
  }, 20_000);
});
