/**
 * Issue 38, row 1: a failover behind Sentinel never loses an acknowledged send in silence. A
 * primary, one replica and three sentinels on loopback (a new set per run); the replica stopped
 * and its replication link killed 1.5 s before the primary's SIGKILL, sends going on meanwhile,
 * so the promoted replica misses the last writes, those acknowledged after the link died among
 * them. Each one the new primary lacks must be named to the producer (cut-failover.ts).
 */
import { MessagingQueue } from 'tenant-messaging/bullmq';
import { describe, expect, it } from 'vitest';
import { redisAvailable, uniqueName } from '../../../helpers/redis.js';
import { startRedisSentinel } from '../../../helpers/redis-sentinel.js';
import { recorder } from '../fixture.js';
import { describeRun, sendsAcrossCutFailover } from './cut-failover.js';
import { holds } from './lagging-failover.js';

const available = redisAvailable();
/** Runs, each on a topology of its own (TM_FAILOVER_RUNS to repeat it more). */
const RUNS = Number(process.env['TM_FAILOVER_RUNS'] ?? 1);

describe.runIf(available)('a Sentinel failover to a replica whose link was cut', () => {
  for (let run = 1; run <= RUNS; run++) {
    it(`run ${run}: every acknowledged send the failover dropped is reported by id, none in silence`, async () => {
      const redis = await startRedisSentinel();
      const name = uniqueName('sentinel-cut');
      const { logger } = recorder();
      const queue = new MessagingQueue({ connection: redis.connection, name, logger });
      try {
        const result = await sendsAcrossCutFailover(queue, {
          cut: async () => {
            const replica = await redis.cutReplica();
            return () => redis.resume(replica);
          },
          failover: (afterKill) => redis.failover({ afterKill }),
          lacking: async (ids) => {
            const held = await holds(
              await redis.primaryPort(),
              ids.map((id) => `bull:${name}:${id}`),
            );
            return ids.filter((_, i) => !held[i]);
          },
        });
        const figures = describeRun(`sentinel, link cut 1.5 s before the kill, run ${run}`, result);
        expect(result.dropped.length, `the failover dropped acknowledged sends (${figures})`).toBeGreaterThan(0);
        expect(result.silent, `dropped and never reported (${figures})`).toEqual([]);
        expect(result.falselyReported, `reported but held by the new primary (${figures})`).toEqual([]);
      } finally {
        await queue.close();
        await redis.stop();
      }
    }, 60_000);
  }
});
