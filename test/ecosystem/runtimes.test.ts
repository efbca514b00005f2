/**
 * The ecosystem test (issue 18), in openai-node's style: the SDK is packed once, installed from
 * the tarball into a small project as a user installs it, and the same program (program.mjs) runs
 * on each runtime with default options against the sandbox on loopback: send text and media, get,
 * wait for delivery, list two pages, a 403 and a ValidationError by class, a dead port reported
 * as never sent, and close().
 *
 * The runtimes are dev dependencies (`bun` and `deno` from the npm registry, their binaries inside
 * the packages). Without one, its case skips with a line saying how to install it; under
 * `CI=true` it fails instead. Packs the built package: `npm run build` first (`npm test` does).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAndInstall, root } from '../helpers/npm.js';
import { json, refusedUrl, startServer, type TestServer } from '../helpers/server.js';

const bin = (name: string) => join(root, 'node_modules', '.bin', name);

interface Runtime {
  readonly name: string;
  /** The command and its arguments before the program's path. */
  readonly command: readonly string[];
  readonly installHint: string;
}

const RUNTIMES: readonly Runtime[] = [
  { name: 'node', command: [process.execPath], installHint: '' },
  { name: 'bun', command: [bin('bun')], installHint: 'npm install (bun is a dev dependency)' },
  {
    name: 'deno',
    command: [bin('deno'), 'run', '-A', '--node-modules-dir=manual'],
    installHint: 'npm install (deno is a dev dependency)',
  },
];

/** Whether a runtime's binary runs; without it the case skips locally and fails under CI=true. */
function available(runtime: Runtime): boolean {
  const [command] = runtime.command;
  const runs = command !== undefined && existsSync(command);
  if (runs) return true;
  const hint = `${runtime.name} is not installed: ${runtime.installHint} to run its ecosystem test`;
  if (process.env['CI'] === 'true') throw new Error(`${hint} (it may not skip under CI=true)`);
  console.warn(`SKIPPED: ${hint}`);
  return false;
}

interface StepResult {
  ok: boolean;
  value?: unknown;
  error?: string;
}

let work: string | undefined;
let project: string;
let sandbox: RunningSandbox | undefined;
let stall: TestServer | undefined;
let redirect: TestServer | undefined;
/** Where the redirect points: it must never be asked (the key would go with the request). */
let elsewhere: TestServer | undefined;
let mediaFile: string;
let env: Record<string, string>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tm-ecosystem-'));
  ({ project } = await packAndInstall(work, 'ecosystem'));
  await copyFile(fileURLToPath(new URL('./program.mjs', import.meta.url)), join(project, 'program.mjs'));
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 20, readAfterMs: 40 } });
  stall = await startServer(() => new Promise(() => {}));
  elsewhere = await startServer((_req, res) => json(res, 200, { data: [] }));
  redirect = await startServer((_req, res) => {
    res.writeHead(302, { location: `${elsewhere?.url}/messages/1` }).end();
  });
  mediaFile = join(work, 'receipt.pdf');
  await writeFile(mediaFile, new Uint8Array(50_000).fill(7));
  const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  env = {
    BASE_URL: tenant.baseUrl,
    API_KEY: tenant.keys.full,
    NO_SEND_KEY: tenant.keys.noSend,
    DEAD_URL: await refusedUrl(),
    STALL_URL: stall.url,
    REDIRECT_URL: redirect.url,
    MEDIA_PATH: mediaFile,
    SENDER: '+15550001001',
    TO: SANDBOX_PHONES.reads,
  };
}, 180_000);

afterAll(async () => {
  await Promise.all([sandbox?.close(), stall?.close(), redirect?.close(), elsewhere?.close()]);
  if (work) await rm(work, { recursive: true, force: true });
});

/** Runs program.mjs on `runtime` in the project and returns its steps. */
async function runProgram(runtime: Runtime): Promise<Record<string, StepResult>> {
  const [command, ...args] = runtime.command as [string, ...string[]];
  const child = spawn(command, [...args, 'program.mjs'], {
    cwd: project,
    env: { ...process.env, ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`${runtime.name} exited ${code} without a result:\n${out}\n${err}`.slice(0, 4000));
  return JSON.parse(line.slice('RESULT '.length)) as Record<string, StepResult>;
}

const sentId = (steps: Record<string, StepResult>) => (steps['send text']?.value as { id: number } | undefined)?.id;

describe.each(RUNTIMES)('the packed SDK on $name, with default options', (runtime) => {
  it.runIf(available(runtime))(
    'sends text and media, reads, waits, lists, types its errors, reports a dead port as never sent, closes',
    async () => {
      const steps = await runProgram(runtime);
      const failed = Object.entries(steps)
        .filter(([, s]) => !s.ok)
        .map(([name, s]) => `${name}: ${s.error}`);
      expect(failed, `${runtime.name}: steps that threw`).toEqual([]);
      const value = (name: string) => steps[name]?.value;
      expect(value('send text')).toMatchObject({ content: 'Hello from the ecosystem test' });
      expect(value('send media (bytes)')).toMatchObject({ type: 'document', media: 'string' });
      expect(value('send media (Blob)')).toMatchObject({ type: 'image' });
      expect(value('send media (path)')).toMatchObject({ type: 'document' });
      expect(value('upload progress')).toMatchObject({ reported: true });
      // The last report counts the whole multipart body: the file and the form around it.
      expect((value('upload progress') as { last: number }).last).toBeGreaterThanOrEqual(200_000);
      expect(value('wait for delivery')).toMatchObject({ status: expect.stringMatching(/^(delivered|read)$/) });
      expect(value('list two pages')).toMatchObject({ first: 15, second: expect.any(Number) });
      expect((value('list two pages') as { second: number }).second).toBeGreaterThan(0);
      expect(value('403 is PermissionDeniedError')).toEqual({ class: true, status: 403 });
      expect(value('bad params are ValidationError')).toEqual({ class: true, paths: ['type'] });
      expect(value('a dead port is never sent')).toEqual({ class: true, neverSent: true });
      expect(value('a timeout is APITimeoutError')).toEqual({ class: true, withinMs: true });
      expect(value('an abort rejects with its reason')).toEqual({ reason: 'stop' });
      expect(value('a redirect is not followed')).toEqual({ class: true, status: 302 });
      expect(elsewhere?.requests).toEqual([]);
      expect(value('close')).toBe(true);
      // What the service stored: this run's text send, once.
      const stored = (sandbox as RunningSandbox).messages('acme').filter((log) => log.id === sentId(steps));
      expect(stored).toHaveLength(1);
    },
    90_000,
  );
});
