import { execFile } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { MessagingClient, type SendMessageParams, type SendResult, ValidationError } from 'tenant-messaging';
import { afterEach, describe, expect, it } from 'vitest';
import { busiest, smallestGap } from './helpers/arrivals.js';
import { retainedHeap } from './helpers/heap.js';
import { json, messageLog, startServer, type TestServer } from './helpers/server.js';

const KEY = 'tm_test_rate_lanes_key';
const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
let server: TestServer | undefined;
const clients: MessagingClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server?.close();
  server = undefined;
});

/** One send as the service saw it: when it arrived (its body read), from whom, to whom. */
interface Arrival {
  readonly at: number;
  readonly sender: string;
  readonly to: string;
}

/**
 * A service that records each send's arrival and answers after `holdMs()` (a request held by a
 * busy service or a proxy): the lanes must hold where the service counts, not where the SDK starts.
 */
async function service(holdMs: () => number = () => 0): Promise<{ url: string; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  server = await startServer(async (req, res) => {
    if (req.method === 'POST') {
      const body = JSON.parse(req.body.toString()) as Record<string, unknown>;
      const sender = String(body['sender_phone'] ?? `#${String(body['sender_number_id'])}`);
      arrivals.push({ at: performance.now(), sender, to: String(body['to_phone']) });
    }
    const hold = holdMs();
    if (hold > 0) await new Promise((resolve) => setTimeout(resolve, hold));
    if (req.method === 'GET' && req.url.endsWith('/messages')) return json(res, 200, { data: [] });
    json(res, req.method === 'POST' ? 201 : 200, { data: messageLog({ id: arrivals.length || 1 }) });
  });
  return { url: server.url, arrivals };
}

function client(url: string, rateLimit: NonNullable<ConstructorParameters<typeof MessagingClient>[0]>['rateLimit']) {
  const made = new MessagingClient({ baseUrl: url, apiKey: KEY, logLevel: 'off', rateLimit });
  clients.push(made);
  return made;
}

const text = (sender: string, to: string): SendMessageParams => ({
  sender_phone: sender,
  to_phone: to,
  type: 'text',
  content: 'hi',
});

/** Arrival times grouped by `key`. */
function by(arrivals: readonly Arrival[], key: (arrival: Arrival) => string): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const arrival of arrivals) {
    const group = groups.get(key(arrival)) ?? [];
    group.push(arrival.at);
    groups.set(key(arrival), group);
  }
  return groups;
}

/** `to_phone` as one person: digits only (the test's own canonical form, independent of the SDK's). */
const person = (arrival: Arrival) => arrival.to.replace(/\D/g, '');

describe('rateLimit.perSender and perRecipient: lanes where the service counts', () => {
  it('no sender exceeds its lane in any sliding second, nor any recipient its gap, whatever the mix (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 })), {
          minLength: 4,
          maxLength: 10,
        }),
        fc.integer({ min: 3, max: 6 }),
        fc.integer({ min: 30, max: 90 }),
        fc.integer({ min: 0, max: 40 }),
        async (mix, perSecond, minInterval, maxHold) => {
          const { url, arrivals } = await service(() => Math.floor(Math.random() * maxHold));
          const tm = client(url, { perSender: { requestsPerSecond: perSecond }, perRecipient: { minInterval } });
          // Each recipient written two ways: the lanes must see one person.
          const phones = ['+15551230001', '+15551230002', '+15551230003', '+15551230004'];
          const written = (r: number, i: number) => (i % 2 === 0 ? phones[r] : `+1 (555) 123-000${r + 1}`) as string;
          const items = mix.map(([s, r], i) => text(`+1555000000${s}`, written(r, i)));
          const results = [];
          for await (const result of tm.messages.sendMany(items, { concurrency: 6 })) results.push(result);
          expect(results.every((r) => r.status === 'sent')).toBe(true);
          expect(arrivals).toHaveLength(items.length);
          for (const times of by(arrivals, (a) => a.sender).values())
            expect(busiest(times, 1000)).toBeLessThanOrEqual(perSecond);
          for (const times of by(arrivals, person).values())
            expect(smallestGap(times)).toBeGreaterThanOrEqual(minInterval);
          await tm.close();
          await server?.close();
          server = undefined;
        },
      ),
      { numRuns: 4 },
    );
  });

  it("a send waiting for its recipient never delays sends to others (sendMany's slots go on)", async () => {
    const { url, arrivals } = await service(() => 5);
    const tm = client(url, { perRecipient: { minInterval: 300 } });
    // Six sends to one person first, then ten to ten others, at concurrency 2.
    const busy = Array.from({ length: 6 }, () => text('+15550000001', '+15557654321'));
    const others = Array.from({ length: 10 }, (_, i) => text('+15550000001', `+1555765430${i}`));
    const started = performance.now();
    const finished = new Map<string, number>();
    for await (const result of tm.messages.sendMany([...busy, ...others], { concurrency: 2 })) {
      expect(result.status).toBe('sent');
      finished.set(`${result.index}`, performance.now() - started);
    }
    // The lane allows the busy recipient's sixth send 5 gaps after its first: the run takes that long.
    const total = Math.max(...finished.values());
    expect(total).toBeGreaterThanOrEqual(5 * 300);
    expect(total).toBeLessThan(5 * 300 * 1.15 + 100);
    // ...and the ten others are all done long before the busy recipient's second send may go.
    const othersDone = Math.max(...others.map((_, i) => finished.get(`${busy.length + i}`) as number));
    expect(othersDone).toBeLessThan(300);
    expect(smallestGap(by(arrivals, person).get('15557654321') as number[])).toBeGreaterThanOrEqual(300);
  });

  it("a busy sender never delays another sender's sends", async () => {
    const { url, arrivals } = await service(() => 5);
    const tm = client(url, { perSender: { requestsPerSecond: 4 } });
    // The busy sender written two ways: one lane.
    const busy = Array.from({ length: 12 }, (_, i) =>
      text(i % 2 ? '+15550000001' : '+1 555 000 0001', `+1555765431${i % 10}`),
    );
    const quiet = Array.from({ length: 4 }, (_, i) => text(`+1555000001${i}`, '+15557654321'));
    const started = performance.now();
    const done: number[] = [];
    await Promise.all(
      [...busy, ...quiet].map(async (params, i) => {
        await tm.messages.send(params);
        done[i] = performance.now() - started;
      }),
    );
    // 12 sends at 4 per sliding second: the last batch may go once the second batch's places end.
    const total = Math.max(...done);
    expect(total).toBeGreaterThanOrEqual(2000);
    expect(total).toBeLessThan(2000 * 1.15 + 100);
    expect(Math.max(...done.slice(busy.length))).toBeLessThan(300);
    const sender = (a: Arrival) => a.sender.replace(/\D/g, '');
    expect(busiest(by(arrivals, sender).get('15550000001') as number[], 1000)).toBeLessThanOrEqual(4);
  });

  it('reads never wait in a lane, and a send aborted while waiting gives its place to the next', async () => {
    const { url, arrivals } = await service();
    const tm = client(url, { perSender: { requestsPerSecond: 1 }, perRecipient: { minInterval: 60_000 } });
    await tm.messages.send(text('+15550000001', '+15557654321'));
    const started = performance.now();
    await Promise.all([tm.messages.get(1), tm.messages.get(1), tm.messages.list()]);
    expect(performance.now() - started).toBeLessThan(500);
    // The recipient's lane is held for a minute: an aborted wait rejects with the signal's reason.
    // The wait is published on the rate-limited channel, with its lane and how long it expects.
    const seen: unknown[] = [];
    const listener = (message: unknown) => seen.push(message);
    subscribe('tenant-messaging:rate-limited', listener);
    const controller = new AbortController();
    const waiting = tm.messages.send(text('+15550000002', '+15557654321'), { signal: controller.signal });
    unsubscribe('tenant-messaging:rate-limited', listener);
    expect(seen).toEqual([
      expect.objectContaining({ endpoint: 'sendMessage', source: 'per-recipient', waitMs: expect.any(Number) }),
    ]);
    expect((seen[0] as { waitMs: number }).waitMs).toBeGreaterThan(59_000);
    setTimeout(() => controller.abort(new Error('gave up')), 20);
    await expect(waiting).rejects.toThrow('gave up');
    expect(arrivals).toHaveLength(1);
    // Another recipient of that sender was never held up behind it.
    await tm.messages.send(text('+15550000002', '+15557654322'));
    expect(arrivals).toHaveLength(2);
  });

  it('thousands of waiting sends cost one timer between them, and memory in proportion to their count', async () => {
    const { url, arrivals } = await service();
    const tm = client(url, { perRecipient: { minInterval: 60_000 } });
    await tm.messages.send(text('+15550000001', '+15557654321'));
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = { timers: timers(), heap: retainedHeap() };
    const controller = new AbortController();
    const WAITING = 2_000;
    // Each to a recipient whose lane is held for a minute: every one of them waits.
    const waiting = Array.from({ length: WAITING }, (_, i) =>
      tm.messages.send(text('+15550000001', i % 2 === 0 ? '+15557654321' : '+1 (555) 765-4321'), {
        signal: controller.signal,
      }),
    );
    for (const promise of waiting) promise.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const during = { timers: timers(), heap: retainedHeap() };
    expect(arrivals).toHaveLength(1);
    expect(during.timers - before.timers).toBeLessThanOrEqual(1);
    // A waiting send is its call and its place in a line: a few KB, never a timer or a socket.
    expect((during.heap - before.heap) / WAITING).toBeLessThan(8_192);
    controller.abort(new Error('done'));
    const settled = await Promise.allSettled(waiting);
    expect(settled.every((r) => r.status === 'rejected' && String(r.reason).includes('done'))).toBe(true);
    expect(arrivals).toHaveLength(1);
  });

  it('a fresh process: sends reach their lanes in the order they were made, while the SDK still loads', async () => {
    // In a process of its own (the schemas and libphonenumber-js not loaded yet), with the built
    // package: twelve sends to one person through sendMany, from three senders.
    const code = `
      import { createServer } from 'node:http';
      import { MessagingClient } from 'tenant-messaging';
      const arrivals = [];
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk) => (body += chunk));
        req.on('end', () => {
          arrivals.push(JSON.parse(body).content);
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(process.env.ANSWER);
        });
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const client = new MessagingClient({
        baseUrl: 'http://127.0.0.1:' + server.address().port, apiKey: 'tm_test_cold', logLevel: 'off',
        rateLimit: { perRecipient: { minInterval: 20 } },
      });
      const items = Array.from({ length: 12 }, (_, i) => ({
        sender_phone: '+1555000000' + (i % 3), to_phone: i % 2 ? '+15557654321' : '+1 (555) 765-4321',
        type: 'text', content: String(i),
      }));
      for await (const result of client.messages.sendMany(items, { concurrency: 8 }))
        if (result.status !== 'sent') throw result.error;
      await client.close();
      server.close();
      console.log(JSON.stringify(arrivals));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], {
      cwd: root,
      env: { ...process.env, ANSWER: JSON.stringify({ data: messageLog() }) },
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toEqual(Array.from({ length: 12 }, (_, i) => String(i)));
  });

  it('many lanes: forgetting idle ones never drops a lane a send is about to hold', async () => {
    const { url, arrivals } = await service();
    const tm = client(url, { perSender: { requestsPerSecond: 100 }, perRecipient: { minInterval: 150 } });
    // A fresh client forgets idle lanes once it knows 64. Make it know 63 (31 sends from new
    // senders to new people, and one from a known sender to a new person), then send twice to a
    // new person from two new senders: the 64th and 65th lanes come while these sends use them.
    for (let i = 0; i < 31; i++)
      await tm.messages.send(text(`+1666000${String(i).padStart(4, '0')}`, `+1555000${String(i).padStart(4, '0')}`));
    await tm.messages.send(text('+16660000000', '+15559999999'));
    await new Promise((resolve) => setTimeout(resolve, 200)); // every lane idle again
    const to = '+15558888888';
    await Promise.all([tm.messages.send(text('+16661111111', to)), tm.messages.send(text('+16662222222', to))]);
    expect(arrivals).toHaveLength(34);
    expect(smallestGap(by(arrivals, person).get(to.slice(1)) as number[])).toBeGreaterThanOrEqual(150);
  });

  it('an aborted wait leaves no timer behind, and a huge interval waits instead of spinning', async () => {
    const { url } = await service();
    const tm = client(url, { perRecipient: { minInterval: 2 ** 32 } });
    await tm.messages.send(text('+15550000001', '+15557654321'));
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const controller = new AbortController();
    const waiting = tm.messages.send(text('+15550000001', '+15557654321'), { signal: controller.signal });
    waiting.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(timers()).toBeLessThanOrEqual(before + 1);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('a sendMany that stops does not send what its lanes still hold', async () => {
    const { url, arrivals } = await service();
    const tm = client(url, { perRecipient: { minInterval: 400 } });
    const items = Array.from({ length: 8 }, () => text('+15550000001', '+15557654321'));
    const controller = new AbortController();
    const results: SendResult[] = [];
    const started = performance.now();
    const run = (async () => {
      for await (const result of tm.messages.sendMany(items, { concurrency: 2, signal: controller.signal })) {
        results.push(result);
        controller.abort(new Error('enough'));
      }
    })();
    await expect(run).rejects.toThrow('enough');
    // One send went; the ones its recipient's lane held back were never sent, and said so at once.
    expect(arrivals).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(300);
    const failed = results.filter((r) => r.status === 'failed');
    for (const r of failed) expect(r.status === 'failed' && r.error.message).toMatch(/^Not sent: the batch stopped/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(arrivals).toHaveLength(1);
  });

  it('refuses bad lane options before any request, saying what is accepted', async () => {
    const bad = [
      [{ perSender: { requestsPerSecond: 0 } }, 'rateLimit.perSender.requestsPerSecond'],
      [{ perSender: {} }, 'rateLimit.perSender.requestsPerSecond'],
      [{ perSender: 10 }, ''],
      [{ perRecipient: { minInterval: 1.5 } }, 'rateLimit.perRecipient.minInterval'],
      [{ perRecipient: { minIntervalMs: 100 } }, 'minIntervalMs'],
      [{ perRecipents: { minInterval: 100 } }, 'perRecipents'],
    ] as const;
    for (const [rateLimit, path] of bad) {
      const made = () =>
        new MessagingClient({ baseUrl: 'http://127.0.0.1:1', apiKey: KEY, rateLimit: rateLimit as never });
      expect(made).toThrow(ValidationError);
      try {
        made();
      } catch (error) {
        expect((error as ValidationError).issues.map((issue) => issue.path)).toContain(path);
      }
    }
  });
});
