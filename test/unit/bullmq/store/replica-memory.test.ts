/**
 * Which replicas a failover could promote, and what each holds at least (store/redis/replica-memory.ts),
 * over any history of a primary's replicas joining, acknowledging, dropping out (a link killed, a
 * restart) and coming back, read by this process at any moments, however far apart. A write at
 * or below `safeOffset` is one every promotable replica acknowledged: an enqueue the producer stops
 * keeping there must be held by any replica Sentinel or a Cluster could promote. Issue 38 found
 * the watch treating "no replica connected now" as "nothing can roll this back".
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPLICA_GONE_MS, replicaMemory } from '../../../../src/bullmq/store/redis/replica-memory.js';

interface Replica {
  connected: boolean;
  /** What it acknowledged (it holds at least this). */
  acked: number;
  droppedAt: number | undefined;
  /** Whether a reading listed it since it last joined. */
  listed: boolean;
}

type Step =
  | { kind: 'write'; bytes: number }
  | { kind: 'join'; replica: number }
  | { kind: 'ack'; replica: number; part: number }
  | { kind: 'drop'; replica: number }
  | { kind: 'wait'; ms: number }
  | { kind: 'read' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), bytes: fc.integer({ min: 1, max: 1_000 }) }),
  fc.record({ kind: fc.constant('join' as const), replica: fc.integer({ min: 0, max: 2 }) }),
  fc.record({
    kind: fc.constant('ack' as const),
    replica: fc.integer({ min: 0, max: 2 }),
    part: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  fc.record({ kind: fc.constant('drop' as const), replica: fc.integer({ min: 0, max: 2 }) }),
  // From a look's second to far past the time a dropped replica stays promotable.
  fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(1_000, 60_000, REPLICA_GONE_MS, 400_000) }),
  fc.record({ kind: fc.constant('read' as const) }),
);

describe('the replicas a failover could promote', () => {
  it('every replica that may be promoted acknowledged at least safeOffset, whatever the history and the moments read', () => {
    let histories = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
        histories++;
        let now = 0;
        let offset = 0;
        let backlog = false;
        const replicas = new Map<number, Replica>();
        const memory = replicaMemory(() => now);
        let lastRead: number | undefined;
        /** Replicas that joined and dropped out between two readings: no reading could see them (store/README.md). */
        const unseeable = new Set<number>();
        for (const each of steps) {
          const replica = 'replica' in each ? replicas.get(each.replica) : undefined;
          if (each.kind === 'write') offset += each.bytes;
          else if (each.kind === 'wait') now += each.ms;
          else if (each.kind === 'join' && !replica?.connected) {
            // One back within minutes resumes where it was; any other syncs in full (it holds everything now).
            const resumes = replica?.droppedAt !== undefined && now - replica.droppedAt < REPLICA_GONE_MS;
            const acked = resumes ? (replica?.acked ?? offset) : offset;
            replicas.set(each.replica, { connected: true, acked, droppedAt: undefined, listed: false });
            unseeable.delete(each.replica);
            backlog = true;
          } else if (each.kind === 'ack' && replica?.connected)
            replica.acked += Math.floor((offset - replica.acked) * each.part);
          else if (each.kind === 'drop' && replica?.connected) {
            replica.connected = false;
            replica.droppedAt = now;
          } else if (each.kind === 'read') {
            for (const [id, r] of replicas) if (!r.connected && !r.listed && lastRead !== undefined) unseeable.add(id);
            lastRead = now;
            const listed = new Map([...replicas].filter(([, r]) => r.connected).map(([id, r]) => [`r${id}`, r.acked]));
            for (const r of replicas.values()) if (r.connected) r.listed = true;
            const info = { replid: 'a', offset, replicas: listed.size, listed, backlog };
            memory.note(info);
            const promotable = [...replicas].filter(
              ([id, r]) => !unseeable.has(id) && (r.connected || now - (r.droppedAt ?? now) < REPLICA_GONE_MS),
            );
            for (const [, r] of promotable) expect(memory.safeOffset(info)).toBeLessThanOrEqual(r.acked);
            if (promotable.some(([, r]) => r.listed)) expect(memory.seen(info)).toBe(true);
          }
        }
      }),
      { seed: 38, numRuns: 400 },
    );
    expect(histories).toBe(400);
  });

  it('a replica that dropped out counts until 5 minutes after a reading first missed it; a first reading counts an unseen one; a failover starts over', () => {
    let now = 0;
    const offset = 1_000;
    const memory = replicaMemory(() => now);
    const reading = (listed: [string, number][], replid = 'a') => {
      const info = { replid, offset, replicas: listed.length, listed: new Map(listed), backlog: true };
      memory.note(info);
      return info;
    };
    /** Readings once a second (as the watch looks) for `ms`. */
    const watched = (ms: number, listed: [string, number][]) => {
      for (const end = now + ms; now < end; ) {
        now += 1_000;
        reading(listed);
      }
    };
    // The first reading cannot know of a replica that dropped out just before: nothing is safe yet.
    expect(memory.safeOffset(reading([['r1', 100]]))).toBe(-1);
    watched(REPLICA_GONE_MS, [['r1', 100]]);
    expect(memory.safeOffset(reading([['r1', 100]]))).toBe(100);
    // Its link killed: no replica listed, yet it may be promoted, holding what it acknowledged.
    watched(REPLICA_GONE_MS - 1_000, []);
    expect([memory.safeOffset(reading([])), memory.seen(reading([]))]).toEqual([100, true]);
    // Gone 5 minutes: no longer waited for; but a primary with a backlog may see it come back
    // through it (a partial resync) holding less: nothing is safe until a replica acknowledges.
    now += 2_000;
    expect([memory.safeOffset(reading([])), memory.seen(reading([]))]).toEqual([-1, false]);
    // Back; then not looked at for 10 minutes, during which it dropped out again: counted from the
    // reading that missed it, not from the last that saw it.
    expect(memory.safeOffset(reading([['r1', 900]]))).toBe(900);
    now += 600_000;
    expect([memory.safeOffset(reading([])), memory.seen(reading([]))]).toEqual([900, true]);
    // A failover (a new replication id): the old primary's replicas are not this one's, and what
    // joined it before this reading is not known; for the worker's WAIT, no replica was seen.
    const promoted = reading([], 'b');
    expect([memory.safeOffset(promoted), memory.seen(promoted)]).toEqual([-1, false]);
    // A Redis that never had a replica (no backlog): nothing to wait for, nothing kept.
    const never = replicaMemory(() => now);
    const alone = { replid: 'b', offset, replicas: 0, listed: new Map<string, number>(), backlog: false };
    never.note(alone);
    expect([never.safeOffset(alone), never.seen(alone)]).toEqual([Number.POSITIVE_INFINITY, false]);
  });
});
