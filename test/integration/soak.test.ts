/**
 * The bounded soak: 6,000 mixed operations (SOAK_OPERATIONS for a longer one) against the sandbox
 * on loopback with about 5% of requests hit by an injected fault. It asserts what a tenant's server needs: no send stored
 * twice, every failure a typed MessagingError, no unhandled rejection, nothing left open.
 */

import { type Logger, type MessageLog, MessagingClient, MessagingError } from 'tenant-messaging';
import { type FaultRule, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
// The sandbox's own seeded generator, so a failing soak can be replayed exactly.
import { seededRandom as random } from '../../src/sandbox/faults/random.js';
import { until } from '../helpers/until.js';

// 6,000 in npm test (CPU the 2-core suite needs elsewhere); the README's figures came from 10,000.
const OPERATIONS = Number(process.env['SOAK_OPERATIONS'] ?? 6_000);
const CONCURRENCY = 32;

/** About 5% of requests in all, spread over every kind of fault the sandbox injects. */
const FAULTS: FaultRule[] = [
  { kind: 'status', status: 503, ratio: 0.01 },
  { kind: 'status', status: 429, ratio: 0.005 },
  { kind: 'drop', when: 'before', ratio: 0.0075 },
  { kind: 'drop', when: 'after', ratio: 0.0075 },
  { kind: 'truncated', ratio: 0.005 },
  { kind: 'malformed', ratio: 0.005 },
  { kind: 'html', ratio: 0.005 },
  { kind: 'stall', ratio: 0.0025 },
  { kind: 'latency', latencyMs: 50, ratio: 0.0025 },
];

function openHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) {
    if (/TCP|Timeout|Pipe/.test(name)) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

describe('soak', () => {
  it(`${OPERATIONS} mixed operations with ~5% injected faults: no duplicate, all typed, nothing leaked`, async () => {
    const baseline = openHandles();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);

    const sandbox = await startSandbox({ delivery: { deliveredAfterMs: 20, readAfterMs: 40 }, seed: 7 });
    for (const rule of FAULTS) sandbox.faults.add(rule);
    sandbox.setMessageLimit('acme', OPERATIONS);
    let retries = 0;
    const logger: Logger = { debug() {}, warn() {}, error() {}, info: () => void retries++ };
    const acme = sandbox.tenants.acme as { baseUrl: string; keys: { full: string } };
    const client = new MessagingClient({
      baseUrl: acme.baseUrl,
      apiKey: acme.keys.full,
      timeout: 400,
      logger,
      logLevel: 'info',
    });

    const next = random(42);
    const sent: MessageLog[] = [];
    const resolvedContents: string[] = [];
    const failures: Record<string, number> = {};
    let untyped = 0;
    let done = 0;

    const operation = async (n: number): Promise<void> => {
      const roll = next();
      const content = `soak #${n}`;
      const last = sent[Math.floor(next() * sent.length)];
      if (roll < 0.3 || (roll < 0.35 && n % 2 === 0)) {
        const log = await client.messages.send({
          sender_phone: '+15550001001',
          to_phone: SANDBOX_PHONES.reads,
          type: 'text',
          content,
        });
        sent.push(log);
        resolvedContents.push(content);
      } else if (roll < 0.35) {
        const media = { data: Buffer.from(`bytes of ${n}`), filename: `n${n}.pdf` };
        const log = await client.messages.send({
          sender_number_id: 1,
          to_phone: SANDBOX_PHONES.reads,
          type: 'document',
          content,
          media,
        });
        sent.push(log);
        resolvedContents.push(content);
      } else if (roll < 0.7 && last) await client.messages.get(last.id);
      else if (roll < 0.85) await client.messages.list({ page: 1 });
      else if (roll < 0.95) await client.contacts.lookup({ phone: SANDBOX_PHONES.reads, sender_phone: '+15550001001' });
      else await [client.me, client.usage, client.subscription][n % 3]?.call(client);
    };

    let index = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (index < OPERATIONS) {
          const n = index++;
          try {
            await operation(n);
          } catch (error) {
            if (error instanceof MessagingError) failures[error.name] = (failures[error.name] ?? 0) + 1;
            else untyped++;
          }
          done++;
        }
      }),
    );

    const storedCounts = new Map<string, number>();
    for (const log of sandbox.messages('acme'))
      storedCounts.set(String(log.content), (storedCounts.get(String(log.content)) ?? 0) + 1);
    const duplicates = [...storedCounts.values()].filter((count) => count > 1).length;
    const resolvedButNotStoredOnce = resolvedContents.filter((content) => storedCounts.get(content) !== 1).length;
    const injected = sandbox.faults.injected;
    const injectedByKind = sandbox.faults.injectedByKind;
    const sendsStored = sandbox.counters.sendsStored;

    await client.close();
    await sandbox.close();
    // Sockets close on their own turn after close() resolves: wait until they have, not a fixed time.
    const leaked = () => Object.entries(openHandles()).filter(([name, count]) => count > (baseline[name] ?? 0));
    await until(
      () => leaked().length === 0,
      () => `handles left open: ${JSON.stringify(leaked())}`,
    ).catch(() => undefined);
    process.off('unhandledRejection', onUnhandled);

    expect(done).toBe(OPERATIONS);
    expect(injected).toBeGreaterThan(OPERATIONS * 0.03);
    // Every kind of fault was met (the rarest, 1 request in 400, some 15 times in 6,000 operations;
    // a shorter run set by SOAK_OPERATIONS may miss one), and the client retried some of them.
    if (OPERATIONS >= 6_000)
      expect(Object.keys(injectedByKind).sort()).toEqual([...new Set(FAULTS.map(({ kind }) => kind))].sort());
    expect(retries).toBeGreaterThan(0);
    expect(Object.values(failures).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    // Every send that resolved was stored once; none was stored twice.
    expect(sendsStored).toBeGreaterThanOrEqual(resolvedContents.length);
    expect(duplicates).toBe(0);
    expect(resolvedButNotStoredOnce).toBe(0);
    expect(untyped).toBe(0);
    expect(unhandled).toEqual([]);
    expect(leaked()).toEqual([]);
    // No bound on its duration here (8 s alone, over 60 s beside two CPU hogs and the suite): a hang
    // fails it by the timeout, and speed is the bench's to measure.
  }, 120_000);
});
