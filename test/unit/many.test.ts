/**
 * sendMany, reconcile and trackDeliveries: many messages, each sent once, each tracked. On the
 * in-process sandbox (or a fake service, for answers lost after the send was stored) and fake timers.
 */
import fc from 'fast-check';
import {
  MessagingClient,
  type SendMessageParams,
  SendOutcomeUnknownError,
  type SendResult,
  ValidationError,
} from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeNow } from '../helpers/fake-clock.js';
import { dropped, fakeService, json, messageLog } from '../helpers/fake-service.js';
import { retainedHeap } from '../helpers/heap.js';
import { settle } from '../helpers/simulated-hour.cjs';

const SENDER = '+15550001001';

function sandboxClient(options: Parameters<typeof createSandbox>[0] = {}) {
  const sandbox = createSandbox({ delivery: { deliveredAfterMs: 30, readAfterMs: 60 }, ...options });
  const { baseUrl, keys } = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  return { sandbox, client: new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch }) };
}

const text = (i: number): SendMessageParams => ({
  sender_phone: SENDER,
  to_phone: SANDBOX_PHONES.reads,
  type: 'text',
  content: `Order #${i} has shipped`,
});

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The value of `promise`, fake time advanced in 10 ms moves until it settles. */
async function settled<T>(promise: Promise<T>): Promise<T> {
  return (await settle(promise, (ms) => vi.advanceTimersByTimeAsync(ms), 10)).value;
}

/** Every item of `iterable`, fake time advanced until it ends. */
async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  await settled(
    (async () => {
      for await (const item of iterable) out.push(item);
    })(),
  );
  return out;
}

describe('messages.sendMany', () => {
  it('sends every item once, yielding each result with its index', async () => {
    const { sandbox, client } = sandboxClient();
    const results = await collect(
      client.messages.sendMany(
        Array.from({ length: 300 }, (_, i) => text(i)),
        { concurrency: 8 },
      ),
    );
    expect(results).toHaveLength(300);
    expect(results.every((r) => r.status === 'sent')).toBe(true);
    expect(new Set(results.map((r) => r.index)).size).toBe(300);
    const stored = sandbox.messages('acme').map((log) => log.content);
    expect(stored).toHaveLength(300);
    expect(new Set(stored).size).toBe(300);
    for (const r of results) expect(r.status === 'sent' && r.log.content).toBe(`Order #${r.index} has shipped`);
  });

  it('a bad item is a failed result with its ValidationError, nothing is sent for it, and the batch goes on', async () => {
    const { sandbox, client } = sandboxClient();
    const items = [
      text(0),
      { ...text(1), to_phone: '' },
      null,
      text(3),
      { type: 'sms' },
    ] as unknown as SendMessageParams[];
    const results = await collect(client.messages.sendMany(items));
    const byIndex = new Map(results.map((r) => [r.index, r]));
    expect([0, 1, 2, 3, 4].map((i) => byIndex.get(i)?.status)).toEqual(['sent', 'failed', 'failed', 'sent', 'failed']);
    for (const i of [1, 2, 4]) expect((byIndex.get(i) as { error: unknown }).error).toBeInstanceOf(ValidationError);
    expect(sandbox.messages('acme')).toHaveLength(2);
  });

  it('reads the source lazily: never more than concurrency items ahead of the results taken (backpressure)', async () => {
    const { client } = sandboxClient();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 40 }), async (concurrency, take) => {
        let pulled = 0;
        function* source() {
          for (let i = 0; i < 1_000_000; i++) {
            pulled++;
            yield text(i);
          }
        }
        let taken = 0;
        await settled(
          (async () => {
            for await (const _ of client.messages.sendMany(source(), { concurrency })) {
              taken++;
              expect(pulled - taken).toBeLessThanOrEqual(concurrency);
              if (taken === take) break; // an early break stops reading the source
            }
          })(),
        );
        expect(pulled).toBeLessThanOrEqual(take + concurrency);
      }),
      { seed: 4, numRuns: 12 },
    );
  });

  it('a 1,000,000-row generator: 20,000 items in flat memory (only the items in flight are held)', async () => {
    // A fetch that answers at once: what is measured is the SDK, not a server.
    const body = JSON.stringify({ data: messageLog() });
    const fetch = async () => new Response(body, { status: 201, headers: { 'content-type': 'application/json' } });
    const client = new MessagingClient({ baseUrl: 'https://api.test', apiKey: 'k', fetch });
    function* cursor() {
      for (let i = 0; i < 1_000_000; i++) yield text(i);
    }
    let count = 0;
    let heapAt1000 = 0;
    await settled(
      (async () => {
        for await (const result of client.messages.sendMany(cursor(), { concurrency: 16 })) {
          expect(result.status).toBe('sent');
          if (++count === 1_000) heapAt1000 = retainedHeap();
          if (count === 20_000) break;
        }
      })(),
    );
    expect(count).toBe(20_000);
    // What is retained once garbage is collected: about nothing (-34 KB in a run); holding the
    // 19,000 results (each with its parsed log) retained 8.7 MB when a run kept them.
    expect(retainedHeap() - heapAt1000).toBeLessThan(4 * 1024 * 1024);
  });

  it('stopOnError stops reading after the first failure; an abort drains what is in flight, then rejects', async () => {
    const { client } = sandboxClient();
    const items = [text(0), { ...text(1), to_phone: '' }, text(2), text(3), text(4), text(5)];
    const stopped = await collect(client.messages.sendMany(items, { concurrency: 1, stopOnError: true }));
    expect(stopped.map((r) => r.status)).toEqual(['sent', 'failed']);

    const controller = new AbortController();
    const seen: SendResult[] = [];
    const run = (async () => {
      for await (const result of client.messages.sendMany(
        Array.from({ length: 50 }, (_, i) => text(i)),
        { concurrency: 2, signal: controller.signal },
      )) {
        seen.push(result);
        if (seen.length === 3) controller.abort(new Error('enough'));
      }
    })();
    await expect(settled(run)).rejects.toThrow('enough');
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.length).toBeLessThanOrEqual(5);
  });
});

/**
 * A service that stores every send, then (for the contents it is told to) drops the connection
 * before answering: the send's outcome is unknown to the client, but the log is there.
 */
function lossyService(lose: (content: string) => boolean) {
  const logs: Record<string, unknown>[] = [];
  const service = fakeService((req) => {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'POST') {
      const sent = JSON.parse(req.body) as Record<string, string>;
      const log = messageLog({
        id: logs.length + 1,
        content: sent['content'],
        sender_number_id: 1,
        request_payload: { to_phone: sent['to_phone'], type: 'text' },
        sent_at: new Date(req.at).toISOString().replace('Z', '000Z'),
      });
      logs.push(log);
      if (lose(sent['content'] ?? '')) return dropped();
      return json(201, { data: log });
    }
    if (url.pathname.endsWith('/sender-numbers')) return json(200, { data: [{ id: 1, phone: SENDER }] });
    const page = Number(url.searchParams.get('page') ?? 1);
    const newest = [...logs].reverse();
    const data = newest.slice((page - 1) * 15, page * 15);
    return json(200, { data, meta: { current_page: page, last_page: Math.max(1, Math.ceil(logs.length / 15)) } });
  });
  return {
    logs,
    client: new MessagingClient({ baseUrl: 'https://api.example.test', apiKey: 'k', fetch: service.fetch }),
  };
}

describe('reconciliation of unknown outcomes', () => {
  it('SendOutcomeUnknownError carries the checked params and startedAt, and reconcile finds the stored log', async () => {
    const { client } = lossyService(() => true);
    const before = fakeNow();
    const error = await settled(client.messages.send(text(7)).catch((e: unknown) => e));
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    const unknown = error as SendOutcomeUnknownError;
    expect(unknown.params).toEqual(text(7));
    expect(unknown.startedAt.getTime()).toBeGreaterThanOrEqual(before);
    const outcome = await settled(
      client.messages.reconcile(unknown.params as NonNullable<typeof unknown.params>, { since: unknown.startedAt }),
    );
    expect(outcome).toMatchObject({ status: 'found', log: { content: 'Order #7 has shipped' } });
  });

  it('in sendMany, every lost answer comes back sent and reconciled; nothing is sent twice', async () => {
    const { logs, client } = lossyService((content) => Number(content.match(/\d+/)?.[0]) % 3 === 0);
    const results = await collect(
      client.messages.sendMany(
        Array.from({ length: 40 }, (_, i) => text(i)),
        { concurrency: 4 },
      ),
    );
    expect(results.every((r) => r.status === 'sent')).toBe(true);
    const reconciled = results.filter((r) => r.status === 'sent' && r.reconciled).map((r) => r.index);
    expect(reconciled.sort((a, b) => a - b)).toEqual(Array.from({ length: 14 }, (_, i) => i * 3));
    expect(logs).toHaveLength(40);
    expect(new Set(logs.map((log) => log['content'])).size).toBe(40);
  });

  it('not-found when nothing matches in the window; ambiguous when the same message was stored twice', async () => {
    const { client } = lossyService(() => false);
    await settled(client.messages.send(text(1)));
    const since = new Date(fakeNow() - 1_000);
    const missing = await settled(client.messages.reconcile(text(2), { since }));
    expect(missing).toMatchObject({ status: 'not-found', searched: { pages: 1, logs: 1 } });
    await settled(client.messages.send(text(1)));
    const twice = await settled(client.messages.reconcile(text(1), { since }));
    expect(twice.status).toBe('ambiguous');
    expect(twice.status === 'ambiguous' && twice.candidates).toHaveLength(2);
  });

  it('with reconcile: false an unknown outcome is yielded as unknown', async () => {
    const { client } = lossyService(() => true);
    const [result] = await collect(client.messages.sendMany([text(1)], { reconcile: false }));
    expect(result?.status).toBe('unknown');
    expect(result?.status === 'unknown' && result.error).toBeInstanceOf(SendOutcomeUnknownError);
  });
});

describe('client.trackDeliveries', () => {
  it('yields each change of every id and ends when all are settled; a 404 settles that id only', async () => {
    const { client } = sandboxClient();
    const phones = [SANDBOX_PHONES.reads, SANDBOX_PHONES.neverReads, SANDBOX_PHONES.neverDelivered];
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) {
      const log = await settled(client.messages.send({ ...text(i), to_phone: phones[i % 3] as string }));
      ids.push(log.id);
    }
    const updates = await collect(
      client.trackDeliveries([...ids, 99_999], { until: 'read', interval: 20, timeout: 1_500 }),
    );
    const last = new Map(updates.map((u) => [u.id, u.status]));
    ids.forEach((id, i) => {
      expect(last.get(id)).toBe(['read', 'timeout', 'timeout'][i % 3]);
    });
    expect(last.get(99_999)).toBe('failed');
    // Every update is a change: no id reports the same status twice in a row.
    for (const id of ids) {
      const statuses = updates.filter((u) => u.id === id).map((u) => u.status);
      expect(statuses.every((s, i) => i === 0 || s !== statuses[i - 1])).toBe(true);
    }
  });

  it('follows ids as they come out of sendMany (an async iterable that grows)', async () => {
    const { client } = sandboxClient();
    async function* sentIds() {
      for await (const result of client.messages.sendMany(Array.from({ length: 20 }, (_, i) => text(i)))) {
        if (result.status === 'sent') yield result.log.id;
      }
    }
    const updates = await collect(client.trackDeliveries(sentIds(), { interval: 20, timeout: 3_000 }));
    const delivered = new Set(updates.filter((u) => u.status === 'delivered' || u.status === 'read').map((u) => u.id));
    expect(delivered.size).toBe(20);
  });

  it('refuses bad arguments before anything starts, and a bad id is a failed update', async () => {
    const { client } = sandboxClient();
    expect(() => client.trackDeliveries(42 as never)).toThrow(ValidationError);
    expect(() => client.trackDeliveries([1], { onUpdate: () => undefined } as never)).toThrow(/is not an option/);
    const [update] = await collect(client.trackDeliveries([0]));
    expect(update).toMatchObject({ id: 0, status: 'failed' });
  });
});
