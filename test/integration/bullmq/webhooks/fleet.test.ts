/**
 * Delivery webhooks on the fleet, every part a real process: Redis, two messaging workers
 * tracking until read, two WebhookRelay processes, and a receiver process that verifies every
 * request with the reference `standardwebhooks` package. The receiver answers 500 to the first
 * attempt of a third of the events, one endpoint never answers, one answers 410 Gone. One relay
 * is killed with SIGKILL in the middle and started again.
 *
 * Every status change of 80 tracked messages must reach the healthy endpoint, verified, at least
 * once, with one `webhook-id` per change and the same body on every copy; the 410 endpoint gets
 * nothing once its 410 is answered (beyond attempts already on the wire then); no secret is in
 * Redis or in any process's output. Runs the built package (`npm run build` first).
 */
import { type ChildProcess, execSync, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessagingQueue } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { dumpRedis } from '../../../helpers/redis-dump.js';
import { expectDocumentedEvent } from '../../../helpers/webhook-schema.js';
import { type Fixture, runs, startFixture, text, until } from '../fixture.js';
import { endpointKey } from './relay-fixture.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const secretOf = (fill: number) => `whsec_${Buffer.from(new Uint8Array(32).fill(fill)).toString('base64')}`;
const HEALTHY_SECRET = secretOf(21);
const OTHER_SECRET = secretOf(22);
const MESSAGES = 80;
/** Attempts a relay makes at once per endpoint (its default). */
const CONCURRENCY = 8;

interface Received {
  path: string;
  id: string;
  status: number;
  at: number;
  body: string;
}

let f: Fixture;
const children: ChildProcess[] = [];
let output = '';

beforeAll(async () => {
  if (!runs) return;
  if (!existsSync(`${root}dist/bullmq/index.js`)) execSync('npm run build', { cwd: root, stdio: 'ignore' });
  f = await startFixture({ delivery: { deliveredAfterMs: 150, readAfterMs: 1_000 } });
}, 60_000);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await f?.close();
});

/** Forks a test process, keeps its output (stdout and stderr), and waits for its first IPC message. */
async function start<T>(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; first: T }> {
  const child = fork(here(script), {
    env: { ...process.env, ...env },
    execPath: process.execPath,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.push(child);
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  const first = await new Promise<T>((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready:\n${output}`)));
  });
  return { child, first };
}

describe.runIf(runs)('delivery webhooks on the fleet', () => {
  it(`every change of ${MESSAGES} tracked messages reaches the healthy endpoint verified, through 500s, a stall, a 410 and a SIGKILL`, async () => {
    const name = uniqueName('hooks');
    const received: Received[] = [];
    const receiver = await start<{ port: number }>('./receiver.mjs', {
      HEALTHY_SECRET,
      OTHER_SECRET,
    });
    receiver.child.on('message', (message) => received.push(message as Received));
    const url = (path: string) => `http://127.0.0.1:${receiver.first.port}${path}`;
    const relayEnv = {
      REDIS_PORT: String(f.redis.port),
      QUEUE: name,
      ENDPOINTS: JSON.stringify([
        { url: url('/healthy'), secret: HEALTHY_SECRET },
        { url: url('/stall'), secret: OTHER_SECRET },
        { url: url('/gone'), secret: OTHER_SECRET },
      ]),
    };
    const relays = [await start('./relay-process.mjs', relayEnv), await start('./relay-process.mjs', relayEnv)];
    const { baseUrl, keys } = f.sandbox.tenants['acme'] as (typeof f.sandbox.tenants)[string];
    const workerEnv = {
      REDIS_PORT: String(f.redis.port),
      QUEUE: name,
      BASE_URL: baseUrl,
      API_KEY: keys.full,
      CONCURRENCY: '8',
      TRACK: JSON.stringify({ until: 'read', interval: 100 }),
    };
    const workers = [await start('../crash-worker.mjs', workerEnv), await start('../crash-worker.mjs', workerEnv)];
    const queue = new MessagingQueue({ connection: f.redis.connection, name });
    // A delivery the healthy endpoint refused (500) waits in the delayed set for its retry, up to
    // 5 s of jittered backoff: what is tested is that the relays retry it with the same id and
    // body, so each one is promoted as soon as it is seen (only those: the stall's, bounced while
    // its slots are taken, would only come back to bounce again).
    const deliveries = f.raw(`${name}.webhook-deliveries`);
    const healthyKey = endpointKey(url('/healthy'));
    const retryNow = async () => {
      for (const job of await deliveries.getDelayed())
        if (job.data.endpoint === healthyKey && job.attemptsMade > 0) await job.promote().catch(() => undefined);
    };
    try {
      // The changes the queue published, read as a user of `updates()` would: what must arrive.
      const published = new Set<string>();
      const reading = new AbortController();
      const collecting = (async () => {
        for await (const update of queue.updates({ signal: reading.signal }))
          published.add(`${update.id}/${update.status}`);
      })();
      const ids = Array.from({ length: MESSAGES }, (_, i) => `hook-${i}`);
      await queue.sendMany(ids.map((id, i) => ({ params: text(i), id })));

      const accepted = () => received.filter((r) => r.path === '/healthy' && r.status === 204);
      const changes = () => new Set(accepted().map((r) => changeOf(r.body)));
      // A relay killed with SIGKILL a third of the way through, then started again.
      await until(
        async () => {
          await retryNow();
          return changes().size >= MESSAGES;
        },
        60_000,
        () => `a third of the changes (${changes().size})`,
      );
      const killed = relays[0]?.child as ChildProcess;
      killed.kill('SIGKILL');
      await new Promise((resolve) => killed.once('exit', resolve));
      relays.push(await start('./relay-process.mjs', relayEnv));

      const allRead = () => ids.every((id) => published.has(`${id}/read`));
      const allArrived = () => {
        const arrived = changes();
        return [...published].every((change) => arrived.has(change));
      };
      await until(
        async () => {
          await retryNow();
          return allRead() && allArrived();
        },
        90_000,
        () => `every change (${changes().size} of ${published.size}; all read: ${allRead()})`,
      );
      reading.abort();
      await collecting;
      // Each message was sent and read; delivered too, when a poll saw it between the two.
      for (const id of ids)
        expect(
          [`${id}/sent`, `${id}/read`].every((c) => published.has(c)),
          id,
        ).toBe(true);
      expect(changes()).toEqual(published);

      // Verified: the receiver refused nothing.
      expect(received.filter((r) => r.status === 400)).toEqual([]);
      // One webhook-id per change, and the same body on every copy of it (retries, re-runs).
      const idsByChange = new Map<string, Set<string>>();
      const bodiesById = new Map<string, Set<string>>();
      for (const r of received.filter((r) => r.path === '/healthy')) {
        idsByChange.set(changeOf(r.body), (idsByChange.get(changeOf(r.body)) ?? new Set()).add(r.id));
        bodiesById.set(r.id, (bodiesById.get(r.id) ?? new Set()).add(r.body));
      }
      for (const [change, webhookIds] of idsByChange) expect([...webhookIds], change).toHaveLength(1);
      for (const [id, bodies] of bodiesById) expect(bodies.size, id).toBe(1);
      // Every event is one the README's JSON Schema documents.
      for (const r of accepted()) expectDocumentedEvent(r.body);
      // The 500s were retried: more requests than changes.
      const healthyRequests = received.filter((r) => r.path === '/healthy');
      expect(healthyRequests.filter((r) => r.status === 500).length).toBeGreaterThan(published.size / 5);

      // 410: each relay checks right before every attempt, so what arrived after the first 410 had
      // passed that check before a 410 was stored: at most one attempt per slot (relays x
      // concurrency), however slowly the machine ran them. A count, not a time: load cannot break it.
      const gone = received.filter((r) => r.path === '/gone');
      expect(gone.length).toBeGreaterThan(0);
      expect(gone.length).toBeLessThanOrEqual(relays.length * CONCURRENCY);
      // The stall was tried, and held up nothing else.
      expect(received.some((r) => r.path === '/stall')).toBe(true);

      // No secret anywhere: Redis, and every process's output (the relays log what they do).
      const everything = await dumpRedis(f.redis.port);
      expect(everything).toContain(`bull:${name}:webhooks`);
      for (const secret of [HEALTHY_SECRET, OTHER_SECRET]) {
        expect(everything).not.toContain(secret.slice('whsec_'.length));
        expect(output).not.toContain(secret.slice('whsec_'.length));
      }
      expect(output).toContain('410 Gone');
    } finally {
      await deliveries.close();
      await queue.close();
      for (const { child } of [...relays, ...workers]) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
  }, 150_000);
});

/** `<business id>/<status>` of an event body. */
function changeOf(body: string): string {
  const event = JSON.parse(body) as { data: { id: string; status: string } };
  return `${event.data.id}/${event.data.status}`;
}
