/**
 * WebhookRelay on each backend (a real Redis, a real PostgreSQL), the sandbox and real receivers on
 * loopback: every update of the queue becomes a signed event (verified with the reference
 * `standardwebhooks` package) at each endpoint that subscribes to its type, at least once, with a
 * `webhook-id` stable across retries; 410 disables an endpoint for every relay until `enable`; a
 * stalling endpoint delays only itself; a redirect is not followed; the deliveries and the reading
 * position survive a restart, and reading an update again adds nothing. No secret reaches the
 * datastore, an error or a log. Bad options are refused before any I/O: relay-options.test.ts.
 */
import type { ServerResponse } from 'node:http';
import { ValidationError } from 'tenant-messaging';
import { WebhookRelay } from 'tenant-messaging/bullmq';
import type { WebhookEvent } from 'tenant-messaging/webhooks';
import { afterAll, beforeAll, describe, expect, it as itRuns } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { BACKENDS, type BackendFixture, startBackendFixture, text } from '../fixture.js';
import { OTHER, relayHarness, SECRET, SECRETS } from './relay-fixture.js';

let f: BackendFixture;
const { fleet, receiver, serve, until, servers, logged, logger, closeFleets, closeServers } = relayHarness(() => f);
afterAll(closeServers);

describe.each(BACKENDS)('WebhookRelay on %s', (backend, available) => {
  beforeAll(async () => {
    if (available) f = await startBackendFixture(backend, { delivery: { deliveredAfterMs: 60, readAfterMs: 150 } });
  }, 30_000);
  afterAll(async () => {
    await closeFleets();
    await f?.close();
  });
  const it = available ? itRuns : itRuns.skip;

  it('takes every option at once, spelt right', async () => {
    const relay = new WebhookRelay({
      connection: f.connection,
      name: uniqueName('wh'),
      endpoints: [{ url: 'https://example.com/hooks?token=t', secret: SECRET, events: ['message.read'] }],
      timeout: 1_000,
      retryFor: 60_000,
      concurrency: 2,
      allowInsecureHttp: false,
      from: 'start',
      lockDuration: 2_000,
      stalledInterval: 1_000,
      logger,
    });
    await relay.ready();
    await relay.close();
  });

  it('relays every update to each subscribed endpoint, signed, at least once with a stable id; 500s are retried with the same id and body', async () => {
    const name = uniqueName('wh');
    const firstSeen = new Set<string>();
    let refused = 0;
    // The first attempt of every third event fails: it must come again, the same.
    const healthy = await receiver(SECRET, (id) => {
      if (firstSeen.has(id)) return 204;
      firstSeen.add(id);
      if (firstSeen.size % 3 !== 0) return 204;
      refused++;
      return 500;
    });
    const readsOnly = await receiver(OTHER, () => 200);
    const { queue, startRelay, published, relayed } = await fleet(name, {
      endpoints: [
        { url: healthy.server.url, secret: SECRET },
        { url: readsOnly.server.url, secret: OTHER, events: ['message.read'] },
      ],
    });
    await startRelay();
    const ids = ['order-1', 'order-2', 'order/3 ü'];
    for (const [i, id] of ids.entries()) await queue.send(text(i), { id });
    // A refused attempt's retry waits in the delayed set (up to 5 s of jittered backoff): what is
    // tested is that it comes again, the same, so each one is promoted as soon as it is seen.
    const deliveries = f.raw(`${name}.webhook-deliveries`);
    await until(
      async () => {
        for (const job of await deliveries.getDelayed()) await job.promote().catch(() => undefined);
        return relayed(ids, healthy);
      },
      45_000,
      () => `every change at the healthy endpoint: got ${[...healthy.changes()]} of ${[...published]}`,
    );
    await deliveries.close();
    const reads = [...published].filter((c) => c.endsWith('/read'));
    await until(() => readsOnly.changes().size === reads.length, 30_000, 'the reads');
    expect(reads.length).toBeGreaterThan(0);

    const events = healthy.accepted;
    const byId = new Map<string, typeof events>();
    for (const e of events) byId.set(e.id, [...(byId.get(e.id) ?? []), e]);
    for (const [webhookId, copies] of byId) {
      const event = copies[0]?.event as WebhookEvent;
      expect(new Set(copies.map((c) => JSON.stringify(c.event))).size, webhookId).toBe(1);
      expect(webhookId).toBe(
        `msg_${encodeURIComponent(event.data.id)}_${event.data.log_id ?? '-'}_${event.data.status}`,
      );
      expect(event.type).toBe(`message.${event.data.status}`);
      if (event.data.log) expect(event.data.log.id).toBe(event.data.log_id);
      expect(Number.isNaN(Date.parse(event.timestamp))).toBe(false);
    }
    expect(healthy.changes()).toEqual(
      new Set([...published].filter((c) => ids.includes(c.slice(0, c.lastIndexOf('/'))))),
    );
    expect(byId.size).toBe(healthy.changes().size);
    // Each 500 was retried: every request was accepted or refused, and every event accepted once.
    expect(refused).toBeGreaterThanOrEqual(2);
    expect(healthy.server.requests.length).toBe(events.length + refused);
    expect(events).toHaveLength(byId.size);
    expect([...readsOnly.changes()].every((c) => c.endsWith('/read'))).toBe(true);
    for (const req of [...healthy.server.requests, ...readsOnly.server.requests]) {
      expect(req.headers['content-type']).toBe('application/json');
      for (const secret of SECRETS) expect(JSON.stringify(req.headers) + req.body.toString()).not.toContain(secret);
    }
  }, 60_000);

  it('410 disables the endpoint for every relay until enable(url); a stalling endpoint delays only itself; a redirect is not followed', async () => {
    const name = uniqueName('wh');
    const healthy = await receiver(SECRET);
    // Gone until it comes back: then it answers 204, as an endpoint one re-enables would.
    let back = false;
    const gone = await serve((_req, res) => {
      if (back) return void res.writeHead(204).end();
      res.writeHead(410).end();
    });
    // The stall holds every attempt unanswered until the test lets go of them (the relays' timeout
    // is longer than the test): then it cuts each one, and every later one, at once.
    const held: ServerResponse[] = [];
    let letGo = false;
    const stall = await serve((_req, res) => {
      if (letGo) res.destroy();
      else held.push(res);
    });
    const elsewhere = await serve((_req, res) => void res.writeHead(204).end());
    const redirect = await serve((_req, res) => void res.writeHead(302, { location: elsewhere.url }).end());
    const RELAYS = 2;
    const CONCURRENCY = 2;
    const { queue, startRelay, relayed } = await fleet(name, {
      endpoints: [
        { url: healthy.server.url, secret: SECRET },
        { url: gone.url, secret: OTHER },
        { url: `${stall.url}/?token=hidden`, secret: OTHER },
        { url: redirect.url, secret: OTHER, events: ['message.sent'] },
      ],
      timeout: 120_000,
      concurrency: CONCURRENCY,
    });
    const relay = await startRelay();
    const second = await startRelay();
    try {
      const ids = ['gone-0', 'gone-1', 'gone-2', 'gone-3'];
      for (const [i, id] of ids.entries()) await queue.send(text(i), { id });
      await until(() => relayed(ids, healthy), 30_000, 'the healthy endpoint');
      // The stall delays only itself: the healthy endpoint had every change while each attempt at
      // the stall was still held, unanswered (an order, not a time: load cannot reverse it).
      expect(held.length).toBeGreaterThan(0);
      expect(held.filter((res) => res.destroyed || res.writableEnded).length, 'stall attempts ended').toBe(0);
      expect(held.length).toBeLessThanOrEqual(RELAYS * CONCURRENCY);

      expect(await relay.disabledEndpoints()).toEqual([{ url: gone.url, since: expect.any(String) }]);
      expect(await second.disabledEndpoints()).toHaveLength(1);
      // Nothing reached it once its 410 was stored: each relay checks right before every attempt,
      // so only attempts that had passed that check before (at most one per slot: relays x
      // concurrency, the first 410 among them) reached it, however slowly the machine ran them.
      await queue.send(text(9), { id: 'after-410' });
      // On PostgreSQL a BullMQ worker that missed a NOTIFY looks again only after its block
      // timeout, and a send then its delivery are two such hops.
      await until(() => relayed(['after-410'], healthy), 30_000, 'after-410');
      expect(gone.requests.length).toBeGreaterThan(0);
      expect(gone.requests.length).toBeLessThanOrEqual(RELAYS * CONCURRENCY);
      expect(gone.requests.filter((r) => r.body.toString().includes('after-410'))).toEqual([]);

      // enable(url): the next updates go there again. (A relay still reading older updates may send
      // those too: each relay reads at its own pace, most visibly on PostgreSQL, which is polled.)
      back = true;
      await relay.enable(gone.url);
      expect(await relay.disabledEndpoints()).toEqual([]);
      await queue.send(text(10), { id: 'after-enable' });
      await until(() => gone.requests.some((r) => r.body.toString().includes('after-enable')), 30_000, 'after-enable');
      expect(await relay.disabledEndpoints()).toEqual([]);
      await expect(relay.enable('https://not.configured/')).rejects.toBeInstanceOf(ValidationError);
    } finally {
      // The held attempts end now (a network error: retried later, or dropped by close()).
      letGo = true;
      for (const res of held) res.destroy();
    }

    // The redirect was never followed; the stall's query never reached a log.
    expect(redirect.requests.length).toBeGreaterThan(0);
    expect(elsewhere.requests).toEqual([]);
    expect(logged.join('\n')).toContain('410 Gone');
    expect(logged.join('\n')).not.toContain('token=hidden');
  }, 60_000);

  it('survives a restart: deliveries queued stay, reading resumes where it stopped, and reading an update again adds nothing', async () => {
    const name = uniqueName('wh');
    // The first attempt of every event fails: each delivery waits in Redis for its retry.
    const tried = new Set<string>();
    const target = await receiver(SECRET, (id) => {
      if (tried.has(id)) return 204;
      tried.add(id);
      return 503;
    });
    const { queue, startRelay, relayed, published } = await fleet(name, {
      endpoints: [{ url: target.server.url, secret: SECRET }],
    });
    const first = await startRelay();
    await queue.send(text(1), { id: 'before-restart' });
    await until(() => target.server.requests.length >= 1, 30_000, 'a first attempt');
    await first.close();
    // While no relay runs, more updates: the send ends (tracked until read) before a relay is back.
    await queue.send(text(2), { id: 'while-down' });
    await until(
      () => [...published].some((c) => c.startsWith('while-down/') && !c.endsWith('/sent')),
      30_000,
      'the send made while no relay ran to end',
    );
    await startRelay();
    const ids = ['before-restart', 'while-down'];
    // Each first attempt fails (503): its retry waits in the datastore's delayed set, up to 5 s of
    // jittered backoff. What is tested is that it stays there across the restart and is made with
    // its webhook-id: so the wait is cut short, each delayed delivery promoted as soon as it is seen.
    const deliveries = f.raw(`${name}.webhook-deliveries`);
    await until(
      async () => {
        for (const job of await deliveries.getDelayed()) await job.promote().catch(() => undefined);
        return relayed(ids, target);
      },
      45_000,
      () => `every change after the restart: ${[...target.changes()]} of ${[...published]}`,
    );
    expect(target.accepted).toHaveLength(published.size);
    const requests = target.server.requests.length;

    // Every update read again from the start of the event log (as after a crash between queueing
    // deliveries and storing the position): each delivery's job id is its webhook-id, so nothing is added.
    const cursor = async () =>
      f.backend === 'redis'
        ? String(await f.run(['HGET', `bull:${name}:webhooks`, 'cursor']))
        : String(
            (
              (await f.run(
                `SELECT value FROM bullmq.tenant_messaging_webhook_state WHERE queue = $1 AND field = 'cursor'`,
                [name],
              )) as { rows: { value: string }[] }
            ).rows[0]?.value,
          );
    const last = await cursor();
    if (f.backend === 'redis') await f.run(['HSET', `bull:${name}:webhooks`, 'cursor', '0']);
    else {
      await f.run(
        `UPDATE bullmq.tenant_messaging_webhook_state SET value = '0' WHERE queue = $1 AND field = 'cursor'`,
        [name],
      );
    }
    await startRelay();
    // The relay stores its position after queueing an update's deliveries: once it is back at the
    // last update, every update was read again and any delivery it added is in the queue.
    await until(
      async () => (await cursor()) === last,
      30_000,
      () => `the position back at ${last}`,
    );
    const counts = await deliveries.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    await deliveries.close();
    expect(counts).toEqual({ waiting: 0, active: 0, delayed: 0, prioritized: 0 });
    expect(target.server.requests.length).toBe(requests);
  }, 60_000);

  it('keeps no secret and no URL in the datastore, and none in its logs', async () => {
    const everything = await f.dump();
    expect(everything).toMatch(/webhook/); // the relays above did store their state
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
    for (const server of servers) expect(everything).not.toContain(server.url.replace('http://', ''));
    for (const secret of SECRETS) expect(logged.join('\n')).not.toContain(secret);
  });
});
