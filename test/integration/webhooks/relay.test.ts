/**
 * relayWebhooks (one process, no fleet) against real receivers on loopback: every status change
 * of tracked messages reaches the healthy receiver, verified with the reference `standardwebhooks`
 * package, at least once and with a stable `webhook-id` per event across retries (it answers 500
 * to the first attempt of every other event); an endpoint that answers 410 receives nothing after
 * it; one that never answers is given up after `retryFor`; a redirect is not followed. Bad
 * endpoints, unknown option keys (as the client refuses them) and bad values are refused before
 * anything is read, and no error or request ever carries a secret.
 */
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { MessagingClient, ValidationError } from 'tenant-messaging';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { relayWebhooks, type WebhookAttempt, type WebhookEvent } from 'tenant-messaging/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CapturedRequest, startServer, type TestServer } from '../../helpers/server.js';
import { expectDocumentedEvent } from '../../helpers/webhook-schema.js';

const secretOf = (fill: number) => `whsec_${Buffer.from(new Uint8Array(32).fill(fill)).toString('base64')}`;
const SECRET = secretOf(3);
const OTHER = secretOf(4);

let sandbox: RunningSandbox;
let client: MessagingClient;
const servers: TestServer[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 50, readAfterMs: 120 } });
  const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  client = new MessagingClient({ baseUrl: tenant.baseUrl, apiKey: tenant.keys.full });
});
afterAll(async () => {
  await client?.close();
  await Promise.all(servers.map((s) => s.close()));
  await sandbox?.close();
});

async function serve(handler: (req: CapturedRequest, res: ServerResponse, index: number) => void): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

const sendMessages = async (n: number) => {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const log = await client.messages.send({
      sender_phone: '+15550001001',
      to_phone: SANDBOX_PHONES.reads,
      type: 'text',
      content: `Relayed ${i}`,
    });
    ids.push(log.id);
  }
  return ids;
};

describe('relayWebhooks', () => {
  it('delivers every change, verified and at least once with a stable id; 410 disables, a stall is given up, a redirect is not followed', async () => {
    const firstAttempts = new Set<string>();
    let events = 0;
    const healthy = await serve((req, res) => {
      const id = req.headers['webhook-id'] as string;
      // Every other event's first attempt fails: it must come again, with the same id.
      if (!firstAttempts.has(id)) {
        firstAttempts.add(id);
        if (events++ % 2 === 0) return void res.writeHead(500).end('try later');
      }
      res.writeHead(204).end();
    });
    const goneArrivals: number[] = [];
    const gone = await serve((_req, res) => {
      goneArrivals.push(performance.now());
      res.writeHead(410).end();
    });
    const stall = await serve(() => undefined);
    const elsewhere = await serve((_req, res) => void res.writeHead(204).end());
    const redirect = await serve((_req, res) => void res.writeHead(307, { location: elsewhere.url }).end());
    const ids = await sendMessages(4);
    const attempts: WebhookAttempt[] = [];

    const summary = await relayWebhooks(client.trackDeliveries(ids, { until: 'read', interval: 40 }), {
      endpoints: [
        { url: healthy.url, secret: SECRET },
        { url: gone.url, secret: OTHER },
        { url: stall.url, secret: OTHER, events: ['message.read'] },
        { url: redirect.url, secret: OTHER, events: ['message.read'] },
      ],
      // 1 s, not less: the 410 endpoint answers on this process's loop, which a loaded machine can
      // hold past a shorter timeout, and a timed-out attempt at it is retried (a second request).
      timeout: 1_000,
      retryFor: 3_000,
      concurrency: 1,
      onAttempt: (attempt) => attempts.push(attempt),
    });

    // The healthy receiver: every request verifies with the reference; per event, one id.
    const verifier = new Webhook(SECRET);
    const received = healthy.requests.map((req) => {
      const event = verifier.verify(req.body.toString(), req.headers as Record<string, string>) as WebhookEvent;
      expectDocumentedEvent(req.body.toString());
      return { id: req.headers['webhook-id'] as string, event };
    });
    const byId = new Map<string, WebhookEvent[]>();
    for (const { id, event } of received) byId.set(id, [...(byId.get(id) ?? []), event]);
    for (const [id, copies] of byId) {
      expect(new Set(copies.map((e) => JSON.stringify(e))).size, id).toBe(1);
      expect(id).toBe(`msg_${copies[0]?.data.log_id}_${copies[0]?.data.status}`);
    }
    // Every message reached read, through events the receiver got (at least once each).
    for (const logId of ids) {
      const statuses = [...byId.values()]
        .map((c) => c[0])
        .filter((e) => e?.data.log_id === logId)
        .map((e) => e?.data.status);
      expect(statuses, String(logId)).toContain('read');
      expect(statuses.every((s) => s === 'sent' || s === 'delivered' || s === 'read')).toBe(true);
    }
    expect(healthy.requests.length).toBeGreaterThan(byId.size); // the 500s were retried
    // 410 (one attempt at a time there): one request, then nothing.
    expect(goneArrivals).toHaveLength(1);
    expect(summary.disabled).toEqual([gone.url]);
    // The stall and the redirect: given up after retryFor; the redirect's target never asked.
    expect(stall.requests.length).toBeGreaterThan(0);
    expect(elsewhere.requests).toEqual([]);
    expect(summary.gaveUp).toBe(ids.length * 2);
    expect(summary.events).toBe(byId.size);
    // onAttempt was told every attempt, with its answer and what came of it.
    const told = (outcome: WebhookAttempt['outcome']) => attempts.filter((a) => a.outcome === outcome);
    expect(told('delivered')).toHaveLength(summary.delivered);
    expect(told('gave-up')).toHaveLength(summary.gaveUp);
    expect(told('disabled')).toEqual([expect.objectContaining({ url: gone.url, status: 410 })]);
    expect(attempts.filter((a) => a.url === healthy.url)).toHaveLength(healthy.requests.length);
    expect(told('retrying').some((a) => a.url === stall.url && a.failure === 'no answer within 1000 ms')).toBe(true);
    expect(told('retrying').some((a) => a.url === redirect.url && a.status === 307)).toBe(true);
    // No request carried a secret.
    for (const server of [healthy, gone, stall, redirect]) {
      for (const req of server.requests)
        expect(JSON.stringify(req.headers) + req.body.toString()).not.toContain(SECRET.slice(6));
    }
  }, 20_000);

  it('refuses bad endpoints before reading any update, never quoting a secret', async () => {
    let read = false;
    const updates = (async function* () {
      read = true;
      yield* [];
    })();
    for (const endpoints of [
      [],
      [{ url: 'ftp://example.com/hooks', secret: SECRET }],
      [{ url: 'http://example.com/hooks', secret: SECRET }],
      [{ url: 'not a url', secret: SECRET }],
      [{ url: 'https://example.com/hooks', secret: 'whsec_not base64!' }],
    ]) {
      const error = await relayWebhooks(updates, { endpoints }).catch((e: unknown) => e);
      expect(error, JSON.stringify(endpoints)).toBeInstanceOf(ValidationError);
      expect((error as Error).message).not.toContain(SECRET.slice(6));
    }
    expect(read).toBe(false);
  });

  it('refuses an unknown option key in any option object before reading an update, naming it', async () => {
    let read = false;
    const updates = (async function* () {
      read = true;
      yield* [];
    })();
    const endpoint = { url: 'https://example.com/hooks', secret: SECRET };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ endpoints: [endpoint], Concurrency: 2 }, 'Concurrency', /did you mean concurrency\?/],
      [{ endpoints: [endpoint], concurency: 2 }, 'concurency', /is not an option of relayWebhooks/],
      [{ endpoints: [endpoint], onattempt: () => undefined }, 'onattempt', /did you mean onAttempt\?/],
      [{ endpoints: [endpoint, { ...endpoint, URL: 'x' }] }, 'endpoints[1].URL', /did you mean url\?/],
      [{ endpoints: [{ ...endpoint, event: ['message.read'] }] }, 'endpoints[0].event', /of an endpoint/],
    ];
    for (const [options, path, message] of cases) {
      const error = await relayWebhooks(updates, options as never).catch((e: unknown) => e);
      expect(error, path).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues, path).toContainEqual({ path, message: expect.stringMatching(message) });
    }
    expect(read).toBe(false);
  });

  it('refuses a bad number, flag, signal or callback, and an endpoint that is not an object, before reading an update', async () => {
    let read = false;
    const updates = (async function* () {
      read = true;
      yield* [];
    })();
    const endpoints = [{ url: 'https://example.com/hooks', secret: SECRET }];
    const cases: [Record<string, unknown>, string][] = [
      [{ timeout: 0 }, 'timeout'],
      [{ timeout: Number.NaN }, 'timeout'],
      [{ timeout: 3_000_000_000 }, 'timeout'],
      [{ retryFor: -1 }, 'retryFor'],
      [{ retryFor: Number.POSITIVE_INFINITY }, 'retryFor'],
      [{ concurrency: 0 }, 'concurrency'],
      [{ concurrency: 1.5 }, 'concurrency'],
      [{ concurrency: Number.NaN }, 'concurrency'],
      [{ concurrency: '8' }, 'concurrency'],
      [{ allowInsecureHttp: 'yes' }, 'allowInsecureHttp'],
      [{ signal: {} }, 'signal'],
      [{ onAttempt: 'log' }, 'onAttempt'],
      [{ endpoints: [null] }, 'endpoints[0]'],
    ];
    for (const [change, path] of cases) {
      const error = await relayWebhooks(updates, { endpoints, ...change } as never).catch((e: unknown) => e);
      expect(error, path).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.path)).toEqual([path]);
    }
    expect(read).toBe(false);
  });

  it('takes every option at once, spelt right', async () => {
    const summary = await relayWebhooks(
      (async function* () {
        yield* [];
      })(),
      {
        endpoints: [{ url: 'https://example.com/hooks?token=t', secret: SECRET, events: ['message.read'] }],
        timeout: 1_000,
        retryFor: 1_000,
        concurrency: 2,
        allowInsecureHttp: false,
        signal: new AbortController().signal,
        onAttempt: () => undefined,
      },
    );
    expect(summary).toEqual({ events: 0, delivered: 0, gaveUp: 0, disabled: [] });
  });

  it('when the updates fail, the deliveries already begun end before the error is passed on', async () => {
    let answered = 0;
    // The endpoint answers once the update source has broken: the delivery is in flight by then.
    let broke = () => {};
    const sourceBroke = new Promise<void>((resolve) => {
      broke = resolve;
    });
    const slow = await serve(async (_req, res) => {
      await sourceBroke;
      answered++;
      res.writeHead(204).end();
    });
    const [logId] = await sendMessages(1);
    const log = await client.messages.get(logId as number);
    const updates = (async function* () {
      yield { id: log.id, log, status: 'sent' };
      broke();
      throw new Error('the update source broke');
    })();
    const error = await relayWebhooks(updates, { endpoints: [{ url: slow.url, secret: SECRET }] }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toBe('the update source broke');
    expect(answered).toBe(1);
  });

  it('on its signal, begins no attempt and no retry, and lets the attempt in flight end by its answer', async () => {
    const stop = new AbortController();
    const received: string[] = [];
    // Holds the first event's answer until the signal has come, then accepts it.
    const slow = await serve((req, res) => {
      received.push(req.headers['webhook-id'] as string);
      stop.abort();
      // The signal's listeners ran as it aborted: the answer comes on the loop's next turn, after them.
      setImmediate(() => res.writeHead(204).end());
    });
    const [logId] = await sendMessages(1);
    const log = await client.messages.get(logId as number);
    const updates = (async function* () {
      // The second event waits for the endpoint's one slot (concurrency 1) when the signal comes.
      yield { id: log.id, log, status: 'sent' };
      yield { id: log.id, log: { ...log, delivery_status: 'delivered' }, status: 'delivered' };
    })();
    const attempts: WebhookAttempt[] = [];
    const summary = await relayWebhooks(updates, {
      endpoints: [{ url: slow.url, secret: SECRET }],
      concurrency: 1,
      signal: stop.signal,
      onAttempt: (attempt) => attempts.push(attempt),
    });
    expect(received).toHaveLength(1);
    expect(summary).toEqual({ events: 2, delivered: 1, gaveUp: 1, disabled: [] });
    expect(attempts.map(({ outcome, status, failure }) => ({ outcome, status, failure }))).toEqual([
      { outcome: 'delivered', status: 204, failure: undefined },
      { outcome: 'gave-up', status: undefined, failure: 'not attempted: the relay was stopped' },
    ]);
  });
});
