/**
 * Many messages against the sandbox over loopback, with its faults: every answer lost after the
 * message was stored is reconciled as found; a message never stored is unknown (or sent, when
 * it was safely retried); 1,000 ids are tracked to their final status.
 */
import { MessagingClient, type SendMessageParams, type SendResult } from 'tenant-messaging';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterEach, describe, expect, it } from 'vitest';

const SENDER = '+15550001001';
let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(options: Parameters<typeof startSandbox>[0] = {}) {
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 40, readAfterMs: 80 }, ...options });
  const { baseUrl, keys } = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  return { sandbox, client: new MessagingClient({ baseUrl, apiKey: keys.full, timeout: 2_000 }) };
}

const order = (i: number): SendMessageParams => ({
  sender_phone: SENDER,
  to_phone: SANDBOX_PHONES.reads,
  type: 'text',
  content: `Campaign message ${i}`,
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('sendMany against the sandbox with faults', () => {
  it('every lost answer is reconciled as found; nothing is stored twice', async () => {
    const { sandbox, client } = await start();
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
    console.log(
      `reconcile test: 200 sends, ${lost} answers lost after storing, ${reconciled.length} reconciled as found, ${stored.length} stored (${200 - new Set(stored).size} twice)`,
    );
  });

  it('a message dropped before it was processed comes back unknown, never sent twice, never lost', async () => {
    const { sandbox, client } = await start();
    const fault = sandbox.faults.add({ kind: 'drop', route: 'sendMessage', ratio: 0.2 });
    const results = await collect(
      client.messages.sendMany(
        Array.from({ length: 100 }, (_, i) => order(i)),
        { concurrency: 4 },
      ),
    );
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
    const { sandbox, client } = await start({ rateLimit: { perSecond: 100 } });
    sandbox.setMessageLimit('acme', 10_000); // the campaign is bigger than the default plan
    let refused = 0;
    const waits: string[] = [];
    const results: SendResult[] = [];
    for await (const result of client.messages.sendMany(
      Array.from({ length: 1_000 }, (_, i) => order(i)),
      { concurrency: 8 },
    )) {
      results.push(result);
    }
    const route = { tenant: 'acme', route: 'POST /messages' };
    const accepted = sandbox.requestLog.acceptedAt(route);
    refused = (sandbox.counters.requests['POST /messages'] ?? 0) - accepted.length;
    expect(results.filter((r) => r.status !== 'sent')).toEqual([]);
    const stored = sandbox.messages('acme').map((log) => log.content);
    expect(stored).toHaveLength(1_000);
    expect(new Set(stored).size).toBe(1_000);
    // The rate, from the sandbox's own clock: accepted sends over the span they took.
    const span = ((accepted.at(-1) ?? 0) - (accepted[0] ?? 0)) / 1000;
    const rate = (accepted.length - 1) / span;
    // The limit is used, not merely respected. A floor only: this process runs the client and the
    // sandbox, and a machine busy elsewhere slows both (0.79 beside two CPU hogs); the bench
    // measures the rate itself (section 7, target >= 0.95).
    expect(rate / 100).toBeGreaterThanOrEqual(0.6);
    // (A sliding second may hold up to twice the limit: Laravel's windows are fixed, as are the sandbox's.)
    // At most `concurrency` 429s per rate window: the gate learns the window, then paces under it.
    const windows = Math.ceil(span);
    expect(refused).toBeLessThanOrEqual(8 * windows);
    const busiest = sandbox.requestLog.maxInWindow(1000, route);
    waits.push(
      `${accepted.length} accepted in ${span.toFixed(2)} s = ${rate.toFixed(1)}/s (${(rate / 100).toFixed(3)} of the limit), ${refused} refused (429) over ${windows} windows, busiest sliding second ${busiest}`,
    );
    console.log(`rate test: ${waits[0]}`);
  }, 60_000);
});

describe('trackDeliveries against the sandbox', () => {
  it('1,000 ids with mixed schedules (read, never read, never confirmed, missing) all settle', async () => {
    // Read (or delivered) as soon as sent: one poll each tells; the 8 s timeout only ends the
    // never-read and never-confirmed ones, with room for 1,000 first polls on a loaded machine
    // (5 s was not enough once: 6 test files and two other processes busy on the 2 cores).
    const { client } = await start({ delivery: { deliveredAfterMs: 0, readAfterMs: 0 } });
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
    );
    const final = new Map(updates.map((u) => [u.id, u.status]));
    expect(final.size).toBe(1_000);
    for (const [id, status] of expected) expect(final.get(id)).toBe(status);
  });
});
