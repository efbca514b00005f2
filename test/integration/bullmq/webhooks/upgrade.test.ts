/**
 * Upgrading WebhookRelay, on each backend (a real Redis, a real PostgreSQL): deliveries queued by
 * the previous version, which kept a BullMQ queue per endpoint (`<name>.webhooks.<hash of its
 * URL>`, jobs `{ v: 1, webhookId, body }` under their webhook-id), waiting or delayed for a retry,
 * are moved into the one queue of deliveries and made, with their webhook-id, their body and their
 * first queueing time (where `retryFor` counts from) unchanged; the old queues are left with
 * nothing to make. A queue of an endpoint the relay does not list is left alone (nothing else
 * has its secret).
 *
 * Rolling out a configuration: relays of one queue listing different endpoints share the one
 * queue of deliveries; a relay that takes a delivery for an endpoint it does not list puts it
 * back (never attempting it, no attempt counted) for a relay that lists it, and gives it up after
 * its `retryFor` when no relay lists it any more.
 */
import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WebhookRelay } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it as itRuns } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { startServer, type TestServer } from '../../../helpers/server.js';
import { BACKENDS, type BackendFixture, startBackendFixture, until } from '../fixture.js';

const SECRET = `whsec_${Buffer.from(new Uint8Array(32).fill(5)).toString('base64')}`;
const verifier = new Webhook(SECRET);
/** The previous version's name for an endpoint's queue: the first 16 hex digits of its URL's SHA-256. */
const keyOf = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 16);

let server: TestServer;
const received: { path: string; id: string; body: string }[] = [];

beforeAll(async () => {
  server = await startServer((req, res) => {
    verifier.verify(req.body.toString(), req.headers as Record<string, string>);
    received.push({ path: req.url, id: req.headers['webhook-id'] as string, body: req.body.toString() });
    res.writeHead(204).end();
  });
});
afterAll(async () => {
  await server.close();
});

/** An event body as the previous version stored it (any JSON: the relay sends it as it is). */
const bodyOf = (id: string) =>
  JSON.stringify({ type: 'message.sent', timestamp: new Date().toISOString(), data: { id, status: 'sent' } });

let f: BackendFixture;

describe.each(BACKENDS)('WebhookRelay on %s, upgraded from a queue per endpoint', (backend, available) => {
  beforeAll(async () => {
    if (available) f = await startBackendFixture(backend);
  }, 30_000);
  afterAll(async () => {
    await f?.close();
  });
  const it = available ? itRuns : itRuns.skip;

  it('moves the deliveries the previous version queued, waiting or delayed, and makes them unchanged', async () => {
    const name = uniqueName('up');
    const url = `${server.url}/hooks/${name}`;
    const gone = `${server.url}/no-longer-listed/${name}`;
    const old = f.raw(`${name}.webhooks.${keyOf(url)}`);
    const unlisted = f.raw(`${name}.webhooks.${keyOf(gone)}`);
    const queuedAt = Date.now() - 3_600_000;
    const bodies = new Map<string, string>();
    const add = (queue: typeof old, webhookId: string, delay = 0) =>
      queue.add(
        'webhook',
        { v: 1, webhookId, body: bodies.set(webhookId, bodyOf(webhookId)).get(webhookId) },
        { jobId: webhookId, timestamp: queuedAt, delay, attempts: 1_000_000, backoff: { type: 'webhook' } },
      );
    const waiting = ['msg_old-1_1_sent', 'msg_old-2_2_sent', 'msg_old%2F3_3_sent'];
    for (const id of waiting) await add(old, id);
    await add(old, 'msg_old-4_4_delivered', 3_600_000); // waiting for a retry an hour from now
    await add(unlisted, 'msg_old-5_5_sent');
    const relay = new WebhookRelay({ connection: f.connection, name, endpoints: [{ url, secret: SECRET }] });
    try {
      await relay.ready();
      const ids = [...waiting, 'msg_old-4_4_delivered'];
      const mine = () => received.filter((r) => r.path === `/hooks/${name}`);
      await until(
        () => ids.every((id) => mine().some((r) => r.id === id)),
        30_000,
        () => `every moved delivery made: ${mine().map((r) => r.id)}`,
      );
      expect(
        mine()
          .map((r) => r.id)
          .sort(),
      ).toEqual([...ids].sort());
      for (const r of mine()) expect(r.body).toBe(bodies.get(r.id));
      // Where retryFor counts from: when the previous version queued it.
      const deliveries = f.raw(`${name}.webhook-deliveries`);
      const moved = await deliveries.getJob(`msg_old-1_1_sent@${keyOf(url)}`);
      expect(moved?.timestamp).toBe(queuedAt);
      await deliveries.close();
      // Nothing left to make in the old queue; the unlisted endpoint's queue untouched. A job is
      // taken out of the old queue once its copy is in the new one, which may deliver it first.
      const left = () => old.getJobCounts('wait', 'delayed', 'active', 'prioritized');
      await until(
        async () => Object.values(await left()).every((n) => n === 0),
        10_000,
        () => 'the old queue emptied',
      );
      expect(await left()).toEqual({ wait: 0, delayed: 0, active: 0, prioritized: 0 });
      expect((await unlisted.getJobCounts('wait')).wait).toBe(1);
      expect(received.some((r) => r.path.startsWith('/no-longer-listed/'))).toBe(false);
    } finally {
      await relay.close();
      await old.close();
      await unlisted.close();
    }
  }, 40_000);

  it('puts back a delivery for an endpoint a relay does not list, for a relay that lists it, and gives it up after retryFor when none does', async () => {
    const name = uniqueName('up');
    const [x, y, z] = ['x', 'y', 'z'].map((path) => `${server.url}/${path}/${name}`) as [string, string, string];
    const deliveries = f.raw(`${name}.webhook-deliveries`);
    const queue = (url: string, webhookId: string) =>
      deliveries.add(
        'webhook',
        { v: 2, endpoint: keyOf(url), webhookId, body: bodyOf(webhookId) },
        { jobId: `${webhookId}@${keyOf(url)}`, attempts: 1_000_000, backoff: { type: 'webhook' } },
      );
    const job = (url: string, webhookId: string) => deliveries.getJob(`${webhookId}@${keyOf(url)}`);
    // A rolling deploy: a relay of the old configuration (x) runs while deliveries for y, which
    // only the new configuration lists, are queued; then it stops and one of the new (x, y) starts.
    // Short locks, as the other relay tests use: a delivery whose end a closing relay could not
    // record is made again after lockDuration + stalledInterval.
    const locks = { lockDuration: 2_000, stalledInterval: 1_000 };
    const old = new WebhookRelay({ connection: f.connection, name, endpoints: [{ url: x, secret: SECRET }], ...locks });
    let next: WebhookRelay | undefined;
    try {
      await old.ready();
      await queue(y, 'msg_for-y_1_sent');
      await queue(z, 'msg_for-z_1_sent');
      // Put back by a relay that lacks its endpoint, a delivery waits in the delayed set (a quarter
      // second at first, then longer): promoted as soon as it is seen, so that it is taken again now.
      const promoted = async (url: string, webhookId: string) => {
        const delayed = await job(url, webhookId);
        if (delayed && (await delayed.isDelayed())) await delayed.promote().catch(() => undefined);
        return delayed;
      };
      await until(
        async () => ((await promoted(y, 'msg_for-y_1_sent'))?.attemptsStarted ?? 0) >= 2,
        30_000,
        () => 'the delivery for y taken twice by the relay that lacks y',
      );
      await old.close();
      expect((await job(y, 'msg_for-y_1_sent'))?.attemptsStarted).toBeGreaterThanOrEqual(2); // taken, put back
      expect(received.some((r) => r.path === `/y/${name}`)).toBe(false); // never attempted there
      const RETRY_FOR = 1_000;
      // The new relay gives up after 1 s (retryFor) a delivery it takes for an endpoint no relay lists.
      next = new WebhookRelay({
        connection: f.connection,
        name,
        endpoints: [
          { url: x, secret: SECRET },
          { url: y, secret: SECRET },
        ],
        retryFor: RETRY_FOR,
        ...locks,
      });
      // retryFor is the behaviour: it passes. Its bounces' growing waits are not: once it is
      // over, z's delivery is promoted, so that the next take is the one that gives it up.
      const gaveUp = async () => {
        const zJob = await job(z, 'msg_for-z_1_sent');
        if (zJob && Date.now() > zJob.timestamp + RETRY_FOR) await promoted(z, 'msg_for-z_1_sent');
        return zJob?.finishedOn !== undefined;
      };
      await until(
        async () => received.some((r) => r.path === `/y/${name}`) && (await gaveUp()),
        40_000,
        () => 'the delivery for y made, and the one for z given up',
      );
      expect(received.filter((r) => r.path === `/y/${name}`).map((r) => r.id)).toEqual(['msg_for-y_1_sent']);
      expect((await job(z, 'msg_for-z_1_sent'))?.failedReason).toMatch(/no relay of the queue has this endpoint/);
      // Put back until then, never attempted: nothing was sent there.
      expect(received.some((r) => r.path === `/z/${name}`)).toBe(false);
    } finally {
      await old.close();
      await next?.close();
      await deliveries.close();
    }
  }, 60_000);
});
