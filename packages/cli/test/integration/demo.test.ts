/**
 * `tenant-messaging demo`, the built bin as a subprocess: against a real tenant's credentials it
 * refuses without `--to` (exit 2); against a configured sandbox (the test's, through the two
 * environment variables) it sends to `--to`, or without it to the sandbox's phone that reads; its options are checked like the other commands'; Ctrl-C at any step ends it
 * with 130, stopping its own sandbox and leaving no temporary file. The story without credentials
 * runs from a packed install in test/integration/package.test.ts. Runs the build (`npm test` builds first).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = join(import.meta.dirname, '../../dist/main.js');
const TO = '+15551234567';
let sandbox: RunningSandbox;
let configured: Record<string, string>;
const none = { TENANT_MESSAGING_BASE_URL: '', TENANT_MESSAGING_API_KEY: '' };

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 30, readAfterMs: 60 } });
  const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  configured = { TENANT_MESSAGING_BASE_URL: tenant.baseUrl, TENANT_MESSAGING_API_KEY: tenant.keys.full };
});
afterAll(() => sandbox?.close());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** What the demo left in its own TMPDIR (the image it wrote must be gone). */
  leftovers: string[];
}

/** Runs `tenant-messaging demo <args>` with its own TMPDIR; Ctrl-C once stdout contains `interruptAt`. */
async function demo(args: string[], env: Record<string, string>, interruptAt?: string): Promise<Run> {
  const tmp = await mkdtemp(join(tmpdir(), 'tm-demo-test-'));
  const child = spawn(process.execPath, [bin, 'demo', ...args], {
    env: { ...process.env, ...env, TMPDIR: tmp, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let interrupted = false;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
    // Once: a second Ctrl-C is the way out at once, which leaves what was running as it is.
    if (interruptAt === undefined || interrupted || !stdout.includes(interruptAt)) return;
    interrupted = true;
    child.kill('SIGINT');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  const leftovers = await readdir(tmp);
  await rm(tmp, { recursive: true, force: true });
  return { code, stdout, stderr, leftovers };
}

describe('tenant-messaging demo', () => {
  it('against a configured tenant without --to: exit 2, a message naming --to, nothing sent', async () => {
    // A real tenant's credentials (refused before any request, so none is needed behind them).
    const real = { TENANT_MESSAGING_BASE_URL: 'https://acme.example.com', TENANT_MESSAGING_API_KEY: 'tm_live_x' };
    const run = await demo([], real);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/UsageError: .*only to a recipient you name with --to: tenant-messaging demo --to \+/);
    expect(run.stdout).toBe('');
    // A test key is no sandbox unless its base URL is on loopback.
    const remote = await demo([], { ...real, TENANT_MESSAGING_API_KEY: 'tm_test_acme_full' });
    expect(remote.code).toBe(2);
  });

  it("with a sandbox's credentials (a tm_test_ key on loopback) and no --to: runs, sending to the phone that reads", async () => {
    const before = sandbox.messages('acme').length;
    const run = await demo([], configured);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Look up ${SANDBOX_PHONES.reads}`);
    expect(run.stdout).toMatch(/done in \d+\.\d s/);
    const sent = sandbox.messages('acme').slice(before);
    expect(sent.map((log) => log.request_payload?.to_phone)).toEqual([SANDBOX_PHONES.reads, SANDBOX_PHONES.reads]);
  });

  it('against a configured tenant, runs the story and sends only to --to', async () => {
    const before = sandbox.messages('acme').length;
    const run = await demo(['--to', TO], configured);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`tenant-messaging demo against ${configured.TENANT_MESSAGING_BASE_URL}/api/v1`);
    expect(run.stdout).toContain(`Look up ${TO}`);
    expect(run.stdout).toContain('delivery_status read after');
    // No key without usage.read on a real tenant: the deliberate error is an unknown log instead.
    expect(run.stdout).toMatch(/NotFoundError: .*\n {3}\(a log id that does not exist\)/);
    expect(run.stdout).toMatch(/done in \d+\.\d s/);
    const sent = sandbox.messages('acme').slice(before);
    expect(sent.map((log) => [log.message_type, log.request_payload?.to_phone])).toEqual([
      ['text', TO],
      ['image', TO],
    ]);
    expect(sandbox.uploads.at(-1)).toMatchObject({ filename: 'receipt.png', contentType: 'image/png' });
    expect(run.leftovers).toEqual([]);
  });

  it('checks its options like the other commands: exit 2 for --json, --api-key, an empty --to, an unknown option', async () => {
    const runs = await Promise.all([
      demo(['--json'], none),
      demo(['--api-key', 'k', '--to', TO], none),
      demo(['--to', ' '], none),
      demo(['--from', TO], none),
    ]);
    expect(runs.map((run) => run.code)).toEqual([2, 2, 2, 2]);
    const [json, apiKey, emptyTo, unknown] = runs.map((run) => run.stderr);
    expect(json).toMatch(/--json does not apply to it/);
    expect(apiKey).toMatch(/--api-key is refused/);
    expect(emptyTo).toMatch(/--to needs a phone/);
    expect(unknown).toMatch(/unknown option '--from'/);
  });

  it('--help says what it does, when --to is needed, and how to run it', async () => {
    const run = await demo(['--help'], none);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: tenant-messaging demo \[options\]/);
    expect(run.stdout).toMatch(/--to <phone> +the recipient \(required against a real tenant\)/);
    expect(run.stdout).toContain('$ npx tenant-messaging-cli demo');
  });

  it('Ctrl-C at any step ends it with 130, or 5 once a message was sent (the send in flight finishes), its sandbox stopped and no file left', async () => {
    const steps = ['1. Who am I', '5. Send a text', '6. Send an image', '7. Wait until'];
    const runs = await Promise.all(steps.map((step) => demo([], none, step)));
    for (const [i, run] of runs.entries()) {
      expect(run.code, `${steps[i]}: ${run.stderr}`).toBe(i === 0 ? 130 : 5);
      expect(run.stderr).toContain('Interrupted');
      if (i > 0) expect(run.stderr).toMatch(/→ Sent: message logs? \d+.* \(exit code 5\): do not send (it|them) again/);
      expect(run.stdout).not.toContain('done in');
      expect(run.leftovers).toEqual([]);
    }
  });

  it('a Ctrl-C after its last step (while it cleans up) never exits 130: the messages were sent', async () => {
    // The signal lands during the cleanup or after the exit: 5 or 0, never a code saying nothing was sent.
    const run = await demo([], none, 'done in');
    expect([0, 5], run.stderr).toContain(run.code);
    expect(run.leftovers).toEqual([]);
  });
});
