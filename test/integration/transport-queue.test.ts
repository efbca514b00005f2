import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import fc from 'fast-check';
import { APITimeoutError, MessagingClient } from 'tenant-messaging';
import { afterEach, describe, expect, it } from 'vitest';
import { json, messageLog, startServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** The client's own Agent keeps this many sockets per origin (src/core/transport/undici-transport.ts). */
const POOL = 16;

let server: TestServer | undefined;
afterEach(() => server?.close());

/** A client whose pool is already warm (undici loaded, one keep-alive socket open). */
async function warmClient(url: string): Promise<MessagingClient> {
  const client = new MessagingClient({ baseUrl: url, apiKey: 'secret-key', maxRetries: 0 });
  await client.me({ timeout: 5_000 }).catch(() => undefined);
  return client;
}

/** A server that holds every read until `release()`, then answers each, echoing the id asked for. */
async function heldServer(): Promise<{ server: TestServer; release: () => void }> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const started = await startServer(async (req, res) => {
    if (!req.url.endsWith('/me')) await released;
    const id = Number(req.url.split('/').pop());
    json(res, 200, req.url.endsWith('/me') ? { data: {} } : { data: messageLog({ id }) });
  });
  return { server: started, release };
}

type Mode = 'deadline' | 'signal';

/**
 * Counts what undici does on the client side: connections it opens and requests it writes.
 * The in-process server's own counts lag (it accepts on the same busy event loop), so "after the
 * callers had their answers" is judged here; the server's totals bound the whole run.
 */
function clientActivity() {
  const counts = { connects: 0, sent: 0 };
  const onConnect = () => counts.connects++;
  const onSend = () => counts.sent++;
  subscribe('undici:client:beforeConnect', onConnect);
  subscribe('undici:client:sendHeaders', onSend);
  return {
    counts,
    stop() {
      unsubscribe('undici:client:beforeConnect', onConnect);
      unsubscribe('undici:client:sendHeaders', onSend);
    },
  };
}

/**
 * Fires `calls` reads at once at a server that never answers them; each ends by its deadline or
 * by one shared signal. Returns what was opened and sent by the time the last caller had its
 * answer, what was opened and sent afterwards, and the server's totals.
 */
async function burst(calls: number, wait: number, mode: Mode) {
  server = await startServer((req, res) => {
    if (req.url.endsWith('/me')) json(res, 200, { data: {} });
    // everything else: never answered
  });
  const client = await warmClient(server.url);
  const activity = clientActivity();
  try {
    const controller = new AbortController();
    const options = mode === 'deadline' ? { timeout: wait } : { timeout: 60_000, signal: controller.signal };
    const results = Array.from({ length: calls }, (_, i) =>
      client.messages.get(i + 1, options).catch((e: unknown) => e),
    );
    if (mode === 'signal') setTimeout(() => controller.abort(new Error('caller gave up')), wait);
    const errors = await Promise.all(results);
    const atAnswer = { ...activity.counts };
    // Closed, the pool has finished whatever it still had queued (close() lets waiting calls go
    // on): anything a timed-out call left behind has opened or sent by now.
    await client.close();
    const after = {
      connects: activity.counts.connects - atAnswer.connects,
      sent: activity.counts.sent - atAnswer.sent,
    };
    return { errors, atAnswer, after, serverSockets: server.sockets, serverRequests: server.requests.length };
  } finally {
    activity.stop();
  }
}

/**
 * A call still waiting when a running one times out may be started (its own deadline, set a few
 * milliseconds later, has not passed), and the socket the timed-out call held is gone: each batch
 * of timers that fires apart from the first can cost one more pool's worth of connections before
 * the last answer. Quiet, the whole burst's deadlines fire in one batch; a coverage run on a loaded
 * machine saw a third. Never one per call, and none after.
 */
const SLACK = 2 * POOL;

/** What a burst may cost: a few pools' worth of sockets and requests, never one per call, and nothing once answered. */
function expectNoStorm(result: Awaited<ReturnType<typeof burst>>): void {
  expect(result.after).toEqual({ connects: 0, sent: 0 });
  expect(result.atAnswer.connects).toBeLessThanOrEqual(POOL + SLACK);
  expect(result.atAnswer.sent).toBeLessThanOrEqual(POOL + SLACK);
  // The warm-up connection and request, plus a few pools' worth: not one per timed-out call.
  expect(result.serverSockets).toBeLessThanOrEqual(1 + POOL + SLACK);
  expect(result.serverRequests).toBeLessThanOrEqual(1 + POOL + SLACK);
}

describe('calls that wait for a connection (defect 5: a connection storm after a burst of timeouts)', () => {
  it('300 reads that time out while queued open no socket beyond the pool, then or later', async () => {
    const result = await burst(300, 80, 'deadline');
    for (const error of result.errors) expect(error).toBeInstanceOf(APITimeoutError);
    expectNoStorm(result);
  });

  it('300 reads whose signal aborts while queued open no socket beyond the pool, then or later', async () => {
    const result = await burst(300, 80, 'signal');
    for (const error of result.errors) expect((error as Error).message).toBe('caller gave up');
    expectNoStorm(result);
  });

  it('for any burst size and wait, by deadline or by signal, sockets stay within the pool', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: POOL + 1, max: 150 }),
        fc.integer({ min: 30, max: 120 }),
        fc.constantFrom<Mode>('deadline', 'signal'),
        async (calls, wait, mode) => {
          try {
            expectNoStorm(await burst(calls, wait, mode));
          } finally {
            await server?.close();
            server = undefined;
          }
        },
      ),
      { numRuns: 8, seed: 20_261_121 },
    );
  });

  it('calls that time out while queued never reach the server; the others are served on kept-alive sockets', async () => {
    const held = await heldServer();
    server = held.server;
    const client = await warmClient(server.url);
    const patient = () => client.messages.get(1, { timeout: 10_000 });
    const hasty = () => client.messages.get(2, { timeout: 20 }).catch((e: unknown) => e);
    // 16 hold every socket until the 100 behind them have timed out; 16 more wait behind those.
    const first = Array.from({ length: POOL }, patient);
    const doomed = Array.from({ length: 100 }, hasty);
    const last = Array.from({ length: POOL }, patient);
    for (const error of await Promise.all(doomed)) expect(error).toBeInstanceOf(APITimeoutError);
    held.release();
    const logs = await Promise.all([...first, ...last]);
    expect(logs).toHaveLength(2 * POOL);
    // The warm-up request plus the 32 patient reads; none of the 100 was ever sent.
    expect(server.requests.filter((r) => r.url.endsWith('/messages/2'))).toHaveLength(0);
    expect(server.requests).toHaveLength(1 + 2 * POOL);
    expect(server.sockets).toBeLessThanOrEqual(POOL);
    await client.close();
  });

  it('a send that times out while waiting for a connection was never sent: APITimeoutError with neverSent, not "may have been sent"', async () => {
    // The reads hold every connection until the send has settled: the send certainly waits for
    // one (a fixed 150 ms hold let a loaded machine free a connection first, and the send left).
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    server = await startServer(async (req, res) => {
      if (!req.url.endsWith('/me')) await released;
      json(
        res,
        req.method === 'POST' ? 201 : 200,
        req.url.endsWith('/me') ? { data: {} } : { data: messageLog({ id: 1 }) },
      );
    });
    const client = await warmClient(server.url);
    const holders = Array.from({ length: POOL }, () => client.messages.get(1, { timeout: 10_000 }));
    // Every read holds its connection.
    await until(
      () => (server?.requests.length ?? 0) >= 1 + POOL,
      () => `${server?.requests.length} of ${1 + POOL} requests arrived`,
    );
    const text = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'queued' } as const;
    const error = await client.messages.send(text, { timeout: 30 }).catch((e: unknown) => e);
    release();
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as APITimeoutError).neverSent).toBe(true);
    await Promise.all(holders);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    await client.close();
  });

  it('close() lets calls still waiting for a connection finish, then closes the pool', async () => {
    const held = await heldServer();
    server = held.server;
    const client = await warmClient(server.url);
    const calls = Array.from({ length: 3 * POOL }, (_, i) => client.messages.get(i + 1));
    // Closed while every call is still held or queued: they go on, then the pool closes.
    const closed = client.close();
    held.release();
    expect(await Promise.all(calls)).toHaveLength(3 * POOL);
    await closed;
    expect(server.requests).toHaveLength(1 + 3 * POOL);
  });
});
