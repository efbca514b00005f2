/**
 * Sends waiting in rateLimit's lanes, under fake timers against the in-process sandbox: what a wait
 * costs (one timer, a few KB), how it ends (an abort gives its place back, leaves no timer), and
 * what never waits (reads). The last test runs real time in a process of its own, and claims order only.
 */
import { execFile } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS } from '../../src/internal/values/checks.js';
import { retainedHeap } from '../helpers/heap.js';
import { lanesSandbox, outcome, settle, text } from '../helpers/lanes-sandbox.js';
import { messageLog } from '../helpers/server.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
afterEach(() => vi.useRealTimers());

describe('rateLimit lanes: what a waiting send costs, and how its wait ends', () => {
  it('reads never wait in a lane, and a send aborted while waiting gives its place to the next', async () => {
    const { client, sends } = lanesSandbox(
      { perSender: { requestsPerSecond: 1 }, perRecipient: { minInterval: 60_000 } },
      ['+15550000001', '+15550000002'],
    );
    await settle(client.messages.send(text('+15550000001', '+15557654321')));
    // Answered with no fake time moved: nothing of theirs waited behind the held lanes.
    const reads = await settle(Promise.all([client.messages.get(1), client.messages.get(1), client.messages.list()]));
    expect(reads.tookMs).toBe(0);
    // The recipient's lane is held for a minute: an aborted wait rejects with the signal's reason.
    // The wait is published on the rate-limited channel, with its lane and how long it expects.
    const seen: unknown[] = [];
    const listener = (message: unknown) => seen.push(message);
    subscribe('tenant-messaging:rate-limited', listener);
    const controller = new AbortController();
    const waiting = client.messages.send(text('+15550000002', '+15557654321'), { signal: controller.signal });
    unsubscribe('tenant-messaging:rate-limited', listener);
    expect(seen).toEqual([
      expect.objectContaining({ endpoint: 'sendMessage', source: 'per-recipient', waitMs: expect.any(Number) }),
    ]);
    expect((seen[0] as { waitMs: number }).waitMs).toBeGreaterThan(59_000);
    setTimeout(() => controller.abort(new Error('gave up')), 20);
    const aborted = await settle(outcome(waiting));
    expect(aborted).toEqual({ value: 'Error: gave up', tookMs: 20 });
    expect(sends()).toHaveLength(1);
    // The sender's place it held while waiting is given back: its send to another person goes at once.
    const other = await settle(client.messages.send(text('+15550000002', '+15557654322')));
    expect(other.tookMs).toBe(0);
    expect(sends()).toHaveLength(2);
  });

  it('thousands of waiting sends cost one timer between them, and memory in proportion to their count', async () => {
    const { client, sends } = lanesSandbox({ perRecipient: { minInterval: 60_000 } }, ['+15550000001']);
    await settle(client.messages.send(text('+15550000001', '+15557654321')));
    const before = { timers: vi.getTimerCount(), heap: retainedHeap() };
    const controller = new AbortController();
    const WAITING = 2_000;
    // Each to a recipient whose lane is held for a minute: every one of them waits.
    const waiting = Array.from({ length: WAITING }, (_, i) =>
      client.messages.send(text('+15550000001', i % 2 === 0 ? '+15557654321' : '15557654321'), {
        signal: controller.signal,
      }),
    );
    for (const promise of waiting) promise.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(50);
    const during = { timers: vi.getTimerCount(), heap: retainedHeap() };
    expect(sends()).toHaveLength(1);
    expect(during.timers - before.timers).toBeLessThanOrEqual(1);
    // A waiting send is its call and its place in a line: a few KB, never a timer or a socket.
    expect((during.heap - before.heap) / WAITING).toBeLessThan(8_192);
    controller.abort(new Error('done'));
    const settled = await Promise.allSettled(waiting);
    expect(settled.every((r) => r.status === 'rejected' && String(r.reason).includes('done'))).toBe(true);
    expect(sends()).toHaveLength(1);
  });

  it('an aborted wait leaves no timer behind, and a huge interval waits instead of spinning', async () => {
    const { client, sends } = lanesSandbox({ perRecipient: { minInterval: 2 ** 32 } }, ['+15550000001']);
    await settle(client.messages.send(text('+15550000001', '+15557654321')));
    const before = vi.getTimerCount();
    const controller = new AbortController();
    const waiting = client.messages.send(text('+15550000001', '+15557654321'), { signal: controller.signal });
    waiting.catch(() => undefined);
    // A month of fake time, longer than a timer can hold: the wait re-arms its one timer for the
    // rest a few times (a spin would arm it again at once, thousands of times), and still waits.
    // Counted by a wrapper put back as it was found: vi.spyOn on a faked setTimeout left the fake
    // timers installed after vi.useRealTimers(), for the next file of the worker.
    const fakeSetTimeout = globalThis.setTimeout;
    let armed = 0;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      armed++;
      return fakeSetTimeout(...args);
    }) as typeof setTimeout;
    try {
      await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 86_400_000);
      expect(armed).toBeLessThanOrEqual(3);
    } finally {
      globalThis.setTimeout = fakeSetTimeout;
    }
    expect(vi.getTimerCount()).toBeLessThanOrEqual(before + 1);
    expect(sends()).toHaveLength(1);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(vi.getTimerCount()).toBeLessThanOrEqual(before);
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
});
