/**
 * Many messages against the in-process sandbox, with its faults, on fake timers: every answer
 * lost after the message was stored is reconciled as found; a message never stored is unknown (or
 * sent, when it was safely retried); 1,000 sends are paced under the rate limit; 1,000 ids are
 * tracked to their final status. The transport on loopback has tests of its own
 * (test/integration/sandbox/, test/integration/fault-tolerance.test.ts).
 */
import { MessagingClient, type SendMessageParams, type SendResult } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES, type SandboxOptions } from 'tenant-messaging/sandbox';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settle } from '../helpers/simulated-hour.cjs';

const SENDER = '+15550001001';

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
});
afterEach(() => {
  vi.useRealTimers();
});

function start(options: SandboxOptions = {}) {
  const sandbox = createSandbox({ delivery: { deliveredAfterMs: 40, readAfterMs: 80 }, ...options });
  const { baseUrl, keys } = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  return {
    sandbox,
    client: new MessagingClient({ baseUrl, apiKey: keys.full, timeout: 2_000, fetch: sandbox.fetch }),
  };
}

const order = (i: number): SendMessageParams => ({
  sender_phone: SENDER,
  to_phone: SANDBOX_PHONES.reads,
  type: 'text',
  content: `Campaign message ${i}`,
});

/** Every item of `iterable`, fake time advanced in `step` ms moves until it ends. */
async function collect<T>(iterable: AsyncIterable<T>, step = 10): Promise<T[]> {
  const out: T[] = [];
  const run = (async () => {
    for await (const item of iterable) out.push(item);
  })();
  await settle(run, (ms) => vi.advanceTimersByTimeAsync(ms), step);
  return out;
}

describe('sendMany against the sandbox with faults', () => {
  it('every lost answer is reconciled as found; nothing is stored twice', async () => {
    const { sandbox, client } = start();
    const fault = sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage', ratio: 0.2 });
    const results = await collect(
      client.messages.sendMany(
        Array.from({ length: 200 }, (_, i) => order(i)),
        { concurrency: 6 },
      ),
    );
    const lost = fault.injected;
    expect(lost).toBeGreaterThan(10);
    const reconciled = results.filter((r) => r.status === 'sent' && r.reconciled);
    expect(reconciled).toHaveLength(lost);
    expect(results.every((r) => r.status === 'sent')).toBe(true);
    const stored = sandbox.messages('acme').map((log) => log.content);
    expect(stored).toHaveLength(200);
    expect(new Set(stored).size).toBe(200);
    // The reconciled log is the one stored for that item.
    for (const r of reconciled as Extract<SendResult, { status: 'sent' }>[]) {
      expect(r.log.content).toBe(`Campaign message ${r.index}`);
    }
  });

  it('a message dropped before it was processed comes back unknown, never sent twice, never lost', async () => {
    const { sandbox, client } = start();
    const fault = sandbox.faults.add({ kind: 'drop', route: 'sendMessage', ratio: 0.2 });
    const results = await collect(
      client.messages.sendMany(
        Array.from({ length: 100 }, (_, i) => order(i)),
        { concurrency: 4 },
      ),
    );
    expect(results).toHaveLength(100);
    const stored = new Set(sandbox.messages('acme').map((log) => log.content));
    expect(stored.size).toBe(sandbox.messages('acme').length); // no duplicates
    for (const r of results) {
      const isStored = stored.has(`Campaign message ${r.index}`);
      if (r.status === 'sent') expect(isStored).toBe(true);
      else {
        expect(r.status).toBe('unknown');
        expect(isStored).toBe(false);
      }
    }
    expect(results.filter((r) => r.status === 'unknown').length).toBe(fault.injected);
  });
});

describe('sendMany under the sandbox rate limit', () => {
  it('1,000 messages at 100 per second: none failed, none twice, few 429s, and the limit is used', async () => {
    const { sandbox, client } = start({ rateLimit: { perSecond: 100 } });
    sandbox.setMessageLimit('acme', 10_000); // the campaign is bigger than the default plan
    const results = await collect(
      client.messages.sendMany(
        Array.from({ length: 1_000 }, (_, i) => order(i)),
        { concurrency: 8 },
      ),
    );
    const route = { tenant: 'acme', route: 'POST /messages' };
    const accepted = sandbox.requestLog.acceptedAt(route);
    const refused = (sandbox.counters.requests['POST /messages'] ?? 0) - accepted.length;
    expect(results.filter((r) => r.status !== 'sent')).toEqual([]);
    const stored = sandbox.messages('acme').map((log) => log.content);
    expect(stored).toHaveLength(1_000);
    expect(new Set(stored).size).toBe(1_000);
    // The limit is used, not merely respected: the 1,000 sends fill 10 of Laravel's fixed windows,
    // the fewest 100 per second allows, and no window holds more than the limit. (On fake time
    // nothing else slows the client; the rate on a real clock is the bench's, section 7.)
    const perWindow = new Map<number, number>();
    for (const at of accepted) perWindow.set(Math.floor(at / 1000), (perWindow.get(Math.floor(at / 1000)) ?? 0) + 1);
    expect(perWindow.size).toBe(10);
    expect([...perWindow.values()]).toEqual(Array.from({ length: 10 }, () => 100));
    // At most `concurrency` 429s per rate window: the gate learns the window, then paces under it.
    expect(refused).toBeLessThanOrEqual(8 * perWindow.size);
  });
});

describe('trackDeliveries against the sandbox', () => {
  it('1,000 ids with mixed schedules (read, never read, never confirmed, missing) all settle', async () => {
    // Read (or delivered) as soon as sent: one poll each tells; the 8 s timeout ends the
    // never-read and never-confirmed ones.
    const { client } = start({ delivery: { deliveredAfterMs: 0, readAfterMs: 0 } });
    const phones = [SANDBOX_PHONES.reads, SANDBOX_PHONES.neverReads, SANDBOX_PHONES.neverDelivered];
    const expected = new Map<number, string>();
    const sent = await collect(
      client.messages.sendMany(
        Array.from({ length: 900 }, (_, i) => ({ ...order(i), to_phone: phones[i % 3] as string })),
        { concurrency: 16 },
      ),
    );
    for (const r of sent) {
      if (r.status !== 'sent') throw new Error(`send ${r.index} was ${r.status}`);
      expected.set(r.log.id, ['read', 'timeout', 'timeout'][r.index % 3] as string);
    }
    for (let i = 0; i < 100; i++) expected.set(900_000 + i, 'failed'); // not in this workspace: 404
    const tracker = client.withOptions({ polling: { maxConcurrent: 32, maxPerSecond: 2_000 } });
    const updates = await collect(
      tracker.trackDeliveries([...expected.keys()], { until: 'read', interval: 50, timeout: 8_000 }),
      50,
    );
    const final = new Map(updates.map((u) => [u.id, u.status]));
    expect(final.size).toBe(1_000);
    for (const [id, status] of expected) expect(final.get(id)).toBe(status);
  });
});
