/**
 * WebhookRelay on each backend (a real Redis, a real PostgreSQL), the sandbox and real receivers on loopback: every update of
 * the queue becomes a signed event (verified with the reference `standardwebhooks` package) at
 * each endpoint that subscribes to its type, at least once, with a `webhook-id` stable across
 * retries; 410 disables an endpoint for every relay until `enable`; a stalling endpoint delays
 * only itself; a redirect is not followed; the deliveries and the reading position survive a
 * restart, and reading an update again adds nothing. Bad options (unknown keys too, as the client
 * refuses them) are refused before any I/O, and no secret reaches Redis, an error or a log.
 */
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { ValidationError } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker, WebhookRelay, type WebhookRelayOptions } from 'tenant-messaging/bullmq';
import type { WebhookEvent } from 'tenant-messaging/webhooks';
import { afterAll, beforeAll, describe, expect, it as itRuns } from 'vitest';
import { configError } from '../../helpers/errors.js';
import { uniqueName } from '../../helpers/redis.js';
import { type CapturedRequest, startServer, type TestServer } from '../../helpers/server.js';
import { expectDocumentedEvent } from '../../helpers/webhook-schema.js';
import { BACKENDS, type BackendFixture, fastWorker, startBackendFixture, text } from '../fixture.js';

const secretOf = (fill: number) => `whsec_${Buffer.from(new Uint8Array(32).fill(fill)).toString('base64')}`;
const SECRET = secretOf(7);
const OTHER = secretOf(8);
const SECRETS = [SECRET, OTHER].map((s) => s.slice('whsec_'.length));

let f: BackendFixture;
const servers: TestServer[] = [];
const closers: (() => Promise<unknown>)[] = [];
const logged: string[] = [];
const logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: unknown) => void logged.push(message + JSON.stringify(meta)),
  error: (message: string, meta?: unknown) => void logged.push(message + JSON.stringify(meta)),
};

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(handler: (req: CapturedRequest, res: ServerResponse, index: number) => void): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

/** The statuses that end a tracked send. */
const FINAL = new Set(['read', 'unknown', 'failed', 'delivery-timeout']);

/**
 * A queue with a worker that tracks until read, and relays of it. `published` holds every change
 * the queue published (`<id>/<status>`), read as a user of `updates()` would: what the endpoints
 * must receive (under load, a send may end `unknown` instead of `read`).
 */
async function fleet(name: string, relay: Omit<WebhookRelayOptions, 'connection' | 'name'>) {
  const queue = new MessagingQueue({ connection: f.connection, name });
  const worker = new MessagingWorker(
    fastWorker(f, name, {
      client: f.client.withOptions({ timeout: 10_000 }),
      concurrency: 4,
      trackDelivery: { until: 'read', interval: 40 },
    }),
  );
  const published = new Set<string>();
  const reading = new AbortController();
  const collecting = (async () => {
    for await (const update of queue.updates({ signal: reading.signal }))
      published.add(`${update.id}/${update.status}`);
  })();
  const relays: WebhookRelay[] = [];
  const startRelay = async (extra: Partial<WebhookRelayOptions> = {}) => {
    const started = new WebhookRelay({
      connection: f.connection,
      name,
      lockDuration: 2_000,
      stalledInterval: 1_000,
      logger,
      ...relay,
      ...extra,
    });
    relays.push(started);
    await started.ready();
    return started;
  };
  /** Whether every id's send ended, and every change of them reached `at`. */
  const relayed = (ids: readonly string[], at: Receiver) =>
    ids.every((id) => [...FINAL].some((status) => published.has(`${id}/${status}`))) &&
    [...published].filter((c) => ids.includes(c.slice(0, c.lastIndexOf('/')))).every((c) => at.changes().has(c));
  closers.push(async () => {
    reading.abort();
    await collecting;
    for (const r of relays) await r.close().catch(() => undefined);
    await worker.close();
    await queue.close();
  });
  return { queue, worker, startRelay, published, relayed };
}

const until = async (check: () => boolean, timeoutMs: number, what: string | (() => string | Promise<string>)) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : await what()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/** A receiver that verifies every request with the reference package, and what it accepted. */
interface Receiver {
  readonly server: TestServer;
  /** The requests it answered 2xx: webhook-id and verified event. */
  readonly accepted: { id: string; event: WebhookEvent }[];
  /** `<business id>/<status>` of every event it accepted. */
  changes(): Set<string>;
}

async function receiver(secret: string, answer: (id: string, index: number) => number = () => 204): Promise<Receiver> {
  const verifier = new Webhook(secret);
  const accepted: { id: string; event: WebhookEvent }[] = [];
  const server = await serve((req, res, index) => {
    const id = req.headers['webhook-id'] as string;
    // Throws (and the test fails on the 500 it causes) unless the signature verifies.
    const event = verifier.verify(req.body.toString(), req.headers as Record<string, string>) as WebhookEvent;
    expectDocumentedEvent(req.body.toString());
    const status = answer(id, index);
    if (status >= 200 && status < 300) accepted.push({ id, event });
    res.writeHead(status).end();
  });
  return {
    server,
    accepted,
    changes: () => new Set(accepted.map(({ event }) => `${event.data.id}/${event.data.status}`)),
  };
}

describe.each(BACKENDS)('WebhookRelay on %s', (backend, available) => {
  beforeAll(async () => {
    if (available) f = await startBackendFixture(backend, { delivery: { deliveredAfterMs: 60, readAfterMs: 150 } });
  }, 30_000);
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await f?.close();
  });
  const it = available ? itRuns : itRuns.skip;

  it('refuses bad options before any I/O, naming each and never quoting a secret', () => {
    const connection = { host: '127.0.0.1', port: 1 };
    const base = { connection, name: 'sms', endpoints: [{ url: 'https://example.com/hooks', secret: SECRET }] };
    const cases: [Partial<WebhookRelayOptions> & Record<string, unknown>, string][] = [
      [{ endpoints: [] }, 'endpoints'],
      [{ endpoints: [{ url: 'http://example.com/hooks', secret: SECRET }] }, 'endpoints[0].url'],
      [{ endpoints: [{ url: 'https://example.com/hooks', secret: 'whsec_%%%' }] }, 'endpoints[0].secret'],
      [
        { endpoints: [{ url: 'https://example.com/hooks', secret: SECRET, events: ['message.opened' as never] }] },
        'endpoints[0].events',
      ],
      [{ endpoints: [...base.endpoints, { url: 'https://example.com/hooks', secret: OTHER }] }, 'endpoints[1].url'],
      [{ timeout: 0 }, 'timeout'],
      [{ retryFor: -1 }, 'retryFor'],
      [{ concurrency: 1.5 }, 'concurrency'],
      [{ from: 'yesterday' as never }, 'from'],
      [{ name: 'a:b' }, 'name'],
      // Unknown keys, as the client refuses them: in the options and in each endpoint.
      [{ concurency: 8 }, 'concurency'],
      [{ Concurrency: 8 }, 'Concurrency'],
      [{ endpoints: [{ ...base.endpoints[0], Secret: SECRET } as never] }, 'endpoints[0].Secret'],
      [{ endpoints: [null as never] }, 'endpoints[0]'],
      [{ endpoints: [{ url: 'https://user:pass@example.com/hooks', secret: SECRET }] }, 'endpoints[0].url'],
      [{ timeout: 3_000_000_000 }, 'timeout'],
      [{ retryFor: Number.POSITIVE_INFINITY }, 'retryFor'],
      [{ lockDuration: 1.5 }, 'lockDuration'],
      [{ lockDuration: 3_000_000_000 }, 'lockDuration'],
      [{ stalledInterval: 0 }, 'stalledInterval'],
      [{ allowInsecureHttp: 'yes' as never }, 'allowInsecureHttp'],
      [{ logger: {} as never }, 'logger'],
    ];
    for (const [change, path] of cases) {
      const error = configError(() => new WebhookRelay({ ...base, ...change } as WebhookRelayOptions));
      expect(
        error.issues.map((issue) => issue.path),
        path,
      ).toContain(path);
      for (const secret of SECRETS) expect(JSON.stringify({ m: error.message, i: error.issues })).not.toContain(secret);
    }
    // A key that differs only in case names the option it meant.
    expect(configError(() => new WebhookRelay({ ...base, Concurrency: 8 } as never)).message).toMatch(
      /Concurrency: is not an option of WebhookRelay; did you mean concurrency\?/,
    );
    // http on loopback is fine without allowInsecureHttp, and anywhere with it.
    expect(() =>
      configError(() => new WebhookRelay({ ...base, endpoints: [], allowInsecureHttp: true })),
    ).not.toThrow();
  });

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
