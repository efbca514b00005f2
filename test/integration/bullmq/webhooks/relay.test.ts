/**
 * WebhookRelay on each backend (a real Redis, a real PostgreSQL), the sandbox and real receivers on
 * loopback: every update of the queue becomes a signed event (verified with the reference
 * `standardwebhooks` package) at each endpoint that subscribes to its type, at least once, with a
 * `webhook-id` stable across retries; 410 disables an endpoint for every relay until `enable`; a
 * stalling endpoint delays only itself; a redirect is not followed; the deliveries and the reading
 * position survive a restart, and reading an update again adds nothing. No secret reaches the
 * datastore, an error or a log. Bad options are refused before any I/O: relay-options.test.ts.
 */
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
    await until(
      () => relayed(ids, healthy),
      20_000,
      () => `every change at the healthy endpoint: got ${[...healthy.changes()]} of ${[...published]}`,
    );
    const reads = [...published].filter((c) => c.endsWith('/read'));
    await until(() => readsOnly.changes().size === reads.length, 5_000, 'the reads');
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
  }, 40_000);

  it('410 disables the endpoint for every relay until enable(url); a stalling endpoint delays only itself; a redirect is not followed', async () => {
    const name = uniqueName('wh');
    const healthy = await receiver(SECRET);
    let goneAnsweredAt = Number.POSITIVE_INFINITY;
    const goneArrivals: number[] = [];
    // Gone until it comes back: then it answers 204, as an endpoint one re-enables would.
    let back = false;
    const gone = await serve((_req, res) => {
      if (back) return void res.writeHead(204).end();
      goneArrivals.push(performance.now());
      goneAnsweredAt = Math.min(goneAnsweredAt, performance.now());
      res.writeHead(410).end();
    });
    const stall = await serve(() => undefined);
    const elsewhere = await serve((_req, res) => void res.writeHead(204).end());
    const redirect = await serve((_req, res) => void res.writeHead(302, { location: elsewhere.url }).end());
    const { queue, startRelay, relayed } = await fleet(name, {
      endpoints: [
        { url: healthy.server.url, secret: SECRET },
        { url: gone.url, secret: OTHER },
        { url: `${stall.url}/?token=hidden`, secret: OTHER },
        { url: redirect.url, secret: OTHER, events: ['message.sent'] },
      ],
      timeout: 300,
      concurrency: 2,
    });
    const relay = await startRelay();
    const second = await startRelay();
    const started = performance.now();
    const ids = ['gone-0', 'gone-1', 'gone-2', 'gone-3'];
    for (const [i, id] of ids.entries()) await queue.send(text(i), { id });
    await until(() => relayed(ids, healthy), 15_000, 'the healthy endpoint');
    // The stall held each of its attempts for the timeout, yet the healthy endpoint had every
    // change within a few seconds (each message takes ~0.2 s to be read).
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(stall.requests.length).toBeGreaterThan(0);

    expect(await relay.disabledEndpoints()).toEqual([{ url: gone.url, since: expect.any(String) }]);
    expect(await second.disabledEndpoints()).toHaveLength(1);
    // Nothing reached it once its 410 was answered, beyond attempts already on the wire then.
    const late = gone.requests.length;
    await queue.send(text(9), { id: 'after-410' });
    // 20 s: on PostgreSQL a BullMQ worker that missed a NOTIFY looks again only after its block
    // timeout, and a send then its delivery are two such hops (CI on Node 22 once took over 10 s).
    await until(() => relayed(['after-410'], healthy), 20_000, 'after-410');
    expect(gone.requests.length).toBe(late);
    // Only attempts begun before the relays had taken in the first 410 (two relays × concurrency
    // 2 on a quiet machine; a loaded one takes longer to take it in): none a second after it.
    expect(goneArrivals.filter((at) => at > goneAnsweredAt + 1_000)).toEqual([]);
    expect(goneAnsweredAt).toBeLessThan(Number.POSITIVE_INFINITY);

    // enable(url): the next updates go there again. (A relay still reading older updates may send
    // those too: each relay reads at its own pace, most visibly on PostgreSQL, which is polled.)
    back = true;
    await relay.enable(gone.url);
    expect(await relay.disabledEndpoints()).toEqual([]);
    await queue.send(text(10), { id: 'after-enable' });
    await until(() => gone.requests.some((r) => r.body.toString().includes('after-enable')), 20_000, 'after-enable');
    expect(await relay.disabledEndpoints()).toEqual([]);
    await expect(relay.enable('https://not.configured/')).rejects.toBeInstanceOf(ValidationError);

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
    await until(() => target.server.requests.length >= 1, 10_000, 'a first attempt');
    await first.close();
    // While no relay runs, more updates.
    await queue.send(text(2), { id: 'while-down' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await startRelay();
    const ids = ['before-restart', 'while-down'];
    await until(
      () => relayed(ids, target),
      30_000,
      () => `every change after the restart: ${[...target.changes()]} of ${[...published]}`,
    );
    expect(target.accepted).toHaveLength(published.size);
    const requests = target.server.requests.length;

    // Every update read again from the start of the event log (as after a crash between queueing
    // deliveries and storing the position): each delivery's job id is its webhook-id, so nothing is added.
    if (f.backend === 'redis') await f.run(['HSET', `bull:${name}:webhooks`, 'cursor', '0']);
    else {
      await f.run(
        `UPDATE bullmq.tenant_messaging_webhook_state SET value = '0' WHERE queue = $1 AND field = 'cursor'`,
        [name],
      );
    }
    await startRelay();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
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
