/**
 * The ecosystem test (issue 18), in openai-node's style: the SDK is packed once, installed from
 * the tarball into a small project as a user installs it, and the same program (program.mjs) runs
 * on each runtime with default options against the sandbox on loopback: send text and media, get,
 * wait for delivery, list two pages, a 403 and a ValidationError by class, a timeout, an abort, a
 * redirect not followed, a dead port, and close(). On Cloudflare Workers the program runs inside
 * a Worker (worker.mjs) that wrangler bundles as it would for a deploy and serves with
 * `wrangler dev` (workerd) on loopback.
 *
 * The runtimes are dev dependencies (`bun`, `deno` and `wrangler` from the npm registry, their
 * binaries inside the packages). Without one, its case skips with a line saying how to install
 * it; under `CI=true` it fails instead. Packs the built package: `npm run build` first (`npm test`
 * does).
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../../helpers/npm.js';
import { copyProject, sharedPackages } from '../../helpers/pack.js';
import { redisAvailable, startRedis, type TestRedis } from '../../helpers/redis.js';
import { json, refusedUrl, startServer, type TestServer } from '../../helpers/server.js';
import {
  COMPATIBILITY_DATES,
  COMPATIBILITY_FLAGS,
  runFor,
  runWorker,
  type StepResult,
  WRANGLER_CONFIGS,
  wranglerConfig,
} from './run-in-project.js';

const bin = (name: string) => join(root, 'node_modules', '.bin', name);

interface Runtime {
  readonly name: string;
  /** The binary that must exist for the case to run. */
  readonly binary: string;
  /** Runs the program on the runtime and returns its steps. */
  run(): Promise<Record<string, StepResult>>;
  /** Runs entries.mjs (the sandbox and testing entries) there; absent where they are not offered. */
  entries?(): Promise<Record<string, StepResult>>;
  /** Runs bullmq.mjs (a queue and a worker against Redis) there; absent where the entry is not offered. */
  bullmq?(): Promise<Record<string, unknown>>;
  /** Runs otel.mjs (instrument() with an in-memory exporter) there. */
  otel?(): Promise<Record<string, unknown>>;
  /** Whether msw intercepts the runtime's fetch there (`sandboxHandlers`). */
  readonly msw?: boolean;
  /** How the SDK's User-Agent names the runtime, e.g. `bun/1.4.5`. */
  readonly agent: RegExp;
  /** Whether `mediaFromPath` can read a file there. */
  readonly fileSystem: boolean;
  /**
   * Whether a refused connection is told apart from one cut mid-request. A Worker's fetch says
   * "Network connection lost." for both: a send to a dead port there may have been sent.
   */
  readonly tellsRefused: boolean;
}

/** A runtime that runs the files itself: `command` before the file's path. */
const local = (name: string, command: readonly string[], msw: boolean): Runtime => ({
  name,
  agent: new RegExp(`^tenant-messaging/\\S+ ${name}/\\d+\\.\\d+`),
  binary: command[0] as string,
  run: () => runProgram(command),
  entries: () => runProgram(command, 'entries.mjs', msw ? { WITH_MSW: '1' } : {}),
  bullmq: () => runProgram(command, 'bullmq.mjs', { REDIS_PORT: String(redis?.port) }),
  otel: () => runProgram(command, 'otel.mjs'),
  msw,
  fileSystem: true,
  tellsRefused: true,
});

const RUNTIMES: readonly Runtime[] = [
  local('node', [process.execPath], true),
  local('bun', [bin('bun')], false),
  local('deno', [bin('deno'), 'run', '-A', '--node-modules-dir=manual'], false),
  ...COMPATIBILITY_DATES.flatMap((date) =>
    COMPATIBILITY_FLAGS.map((flags) => ({
      name: `Cloudflare Workers (${date}, ${flags})`,
      agent: /^tenant-messaging\/\S+ workerd$/,
      binary: bin('wrangler'),
      run: () => runWorker(project, env, wranglerConfig(date, flags)),
      fileSystem: false,
      tellsRefused: false,
    })),
  ),
];

/** Whether a runtime's binary is installed; without it the case skips locally and fails under CI=true. */
function available(runtime: Runtime): boolean {
  if (existsSync(runtime.binary)) return true;
  const hint = `${runtime.name} is not installed: run npm install (it is a dev dependency) to run its ecosystem test`;
  if (process.env['CI'] === 'true') throw new Error(`${hint} (it may not skip under CI=true)`);
  console.warn(`SKIPPED: ${hint}`);
  return false;
}

let work: string | undefined;
let project: string;
let sandbox: RunningSandbox | undefined;
let stall: TestServer | undefined;
let redirect: TestServer | undefined;
/** Where the redirect points: it must never be asked (the key would go with the request). */
let elsewhere: TestServer | undefined;
let mediaFile: string;
let redis: TestRedis | undefined;
const hasRedisTests = redisAvailable();
let env: Record<string, string>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tm-ecosystem-'));
  // A copy of the suite's install: the programs, configurations and peers are added to it.
  project = await copyProject((await sharedPackages()).sdkProject, join(work, 'ecosystem'));
  for (const file of ['program.mjs', 'steps.mjs', 'worker.mjs', 'entries.mjs', 'bullmq.mjs', 'otel.mjs']) {
    await copyFile(fileURLToPath(new URL(`./${file}`, import.meta.url)), join(project, file));
  }
  for (const [file, text] of Object.entries(WRANGLER_CONFIGS)) await writeFile(join(project, file), text);
  // The optional peers (msw for /testing, bullmq and ioredis for /bullmq, OpenTelemetry for /otel): the repository's
  // copies, linked as an install would place them (their dependencies resolve from their real paths).
  await mkdir(join(project, 'node_modules', '@opentelemetry'));
  for (const peer of ['msw', 'bullmq', 'ioredis', '@opentelemetry/api', '@opentelemetry/sdk-trace']) {
    await symlink(join(root, 'node_modules', peer), join(project, 'node_modules', peer), 'dir');
  }
  if (hasRedisTests) redis = await startRedis();
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
    SENDER: '+15550001001',
    TO: SANDBOX_PHONES.reads,
  };
}, 180_000);

afterAll(async () => {
  await Promise.all([sandbox?.close(), stall?.close(), redirect?.close(), elsewhere?.close(), redis?.stop()]);
  if (work) await rm(work, { recursive: true, force: true });
});

/** Runs `file` (program.mjs) with `command` in the project and returns its steps. */
async function runProgram(
  command: readonly string[],
  file = 'program.mjs',
  extraEnv: Record<string, string> = {},
): Promise<Record<string, StepResult>> {
  const { out, err, code } = await runFor(
    project,
    command,
    [file],
    { ...env, MEDIA_PATH: mediaFile, ...extraEnv },
    () => false,
  );
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`${command[0]} exited ${code} without a result:\n${out}\n${err}`.slice(0, 4000));
  return JSON.parse(line.slice('RESULT '.length)) as Record<string, StepResult>;
}

const sentId = (steps: Record<string, StepResult>) => (steps['send text']?.value as { id: number } | undefined)?.id;

/** Every case of one runtime. */
function runtimeCases(runtime: Runtime): void {
  it.runIf(available(runtime))(
    'sends text and media, reads, waits, lists, types its errors, tells what a dead port means, closes',
    async () => {
      const before = redirect?.requests.length ?? 0;
      const steps = await runtime.run();
      const failed = Object.entries(steps)
        .filter(([, s]) => !s.ok)
        .map(([name, s]) => `${name}: ${s.error}`);
      expect(failed, `${runtime.name}: steps that threw`).toEqual([]);
      const value = (name: string) => steps[name]?.value;
      expect(value('send text')).toMatchObject({ content: 'Hello from the ecosystem test' });
      expect(value('send media (bytes)')).toMatchObject({ type: 'document', media: 'string' });
      expect(value('send media (Blob)')).toMatchObject({ type: 'image' });
      expect(value('send media (web stream)')).toMatchObject({ type: 'voice' });
      if (runtime.fileSystem) expect(value('send media (path)')).toMatchObject({ type: 'document' });
      else {
        expect(value('a path is a ValidationError')).toMatchObject({ class: true });
        expect((value('a path is a ValidationError') as { message: string }).message).toMatch(/Cloudflare Workers/);
      }
      expect(value('upload progress')).toMatchObject({ reported: true });
      // The last report counts the whole multipart body: the file and the form around it.
      expect((value('upload progress') as { last: number }).last).toBeGreaterThanOrEqual(200_000);
      expect(value('wait for delivery')).toMatchObject({ status: expect.stringMatching(/^(delivered|read)$/) });
      expect(value('list two pages')).toMatchObject({ first: 15, second: expect.any(Number) });
      expect((value('list two pages') as { second: number }).second).toBeGreaterThan(0);
      expect(value('403 is PermissionDeniedError')).toEqual({ class: true, status: 403 });
      expect(value('bad params are ValidationError')).toEqual({ class: true, paths: ['type'] });
      if (runtime.tellsRefused) {
        expect(value('a dead port is never sent')).toEqual({
          class: true,
          name: 'APIConnectionError',
          neverSent: true,
        });
      } else {
        // Nothing tells a refused connection from a cut one there: the send may have been sent.
        expect(value('a dead port is never sent')).toMatchObject({ name: 'SendOutcomeUnknownError' });
      }
      expect(value('a timeout is APITimeoutError')).toEqual({ class: true, name: 'APITimeoutError' });
      expect(value('an abort rejects with its reason')).toEqual({ reason: 'stop' });
      expect(value('a redirect is not followed')).toEqual({ class: true, status: 302 });
      expect(elsewhere?.requests).toEqual([]);
      // Its own request to the redirect, told apart from another runtime's (they run side by side)
      // by the User-Agent, which names the runtime: one, and it names this runtime.
      const agents = (redirect?.requests.slice(before) ?? [])
        .map((r) => String(r.headers['user-agent']))
        .filter((agent) => runtime.agent.test(agent));
      expect(agents).toHaveLength(1);
      expect(value('webhook signed and verified')).toEqual({ type: 'message.read', tampered: 'bad-signature' });
      expect(value('close')).toBe(true);
      // What the service stored: this run's text send, once.
      const stored = (sandbox as RunningSandbox).messages('acme').filter((log) => log.id === sentId(steps));
      expect(stored).toHaveLength(1);
    },
    90_000,
  );

  // Workers get no such case: these entries are not part of the Workers build (README, Runtimes).
  if (runtime.entries)
    it.runIf(available(runtime))(
      'starts tenant-messaging/sandbox on loopback, and runs tenant-messaging/testing with its fetch (and msw on Node)',
      async () => {
        const steps = await (runtime.entries as () => Promise<Record<string, StepResult>>)();
        const failed = Object.entries(steps)
          .filter(([, s]) => !s.ok)
          .map(([name, s]) => `${name}: ${s.error}`);
        expect(failed, `${runtime.name}: steps that threw`).toEqual([]);
        expect(steps['sandbox on loopback']?.value).toEqual({
          stored: 1,
          status: expect.stringMatching(/^(delivered|read)$/),
        });
        expect(steps['testing: the sandbox through its fetch']?.value).toEqual({ denied: true });
        if (runtime.msw) expect(steps['testing: msw handlers']?.value).toEqual({ id: expect.any(Number), stored: 1 });
      },
      90_000,
    );

  if (runtime.bullmq) {
    it.runIf(available(runtime) && hasRedisTests)(
      'runs tenant-messaging/bullmq: a queue and a rate-limited worker send three messages and close',
      async () => {
        const result = await (runtime.bullmq as () => Promise<Record<string, unknown>>)();
        expect(result).toEqual({ sent: ['m-0', 'm-1', 'm-2'], closed: true });
      },
      90_000,
    );
  }

  if (runtime.otel) {
    it.runIf(available(runtime))(
      'runs tenant-messaging/otel: one CLIENT span per call, with its method and status',
      async () => {
        const result = await (runtime.otel as () => Promise<Record<string, unknown>>)();
        expect(result).toEqual({
          spans: [
            { name: 'messages.send', method: 'POST', status: 201 },
            { name: 'messages.get', method: 'GET', status: 200 },
          ],
        });
      },
      90_000,
    );
  }
}

// The runtimes that run the files themselves, side by side: each run is a child process that
// waits on the sandbox, and what it checks is its own (its send's id, its requests to the redirect
// by its User-Agent, a queue of its own). The two Workers cases one after the other, after them:
// wrangler dev keeps its state in the project's folder.
const isWorker = (runtime: Runtime) => runtime.name.startsWith('Cloudflare Workers');
describe.concurrent('the runtimes that run the files themselves, side by side', () => {
  describe.each(RUNTIMES.filter((runtime) => !isWorker(runtime)))(
    'the packed SDK on $name, with default options',
    runtimeCases,
  );
});
describe.each(RUNTIMES.filter(isWorker))('the packed SDK on $name, with default options', runtimeCases);
