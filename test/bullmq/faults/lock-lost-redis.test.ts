/**
 * A Redis frozen (SIGSTOP) while sends wait at the fleet gate: a job whose lock expired meanwhile
 * never POSTs once another worker has taken it (lock-lost-run.ts). At 1/s and 20/s, with short
 * locks that the freeze outlasts and with BullMQ's default, at seeded moments.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { redisAvailable, startRedis, type TestRedis } from '../../helpers/redis.js';
import { type FreezeCase, runFreeze } from './lock-lost-run.js';

const available = redisAvailable();
const servers: TestRedis[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
});

const CASES: readonly FreezeCase[] = [
  { requestsPerSecond: 1, lockDuration: 1_500, messages: 6, seed: 0x48_01 },
  { requestsPerSecond: 20, lockDuration: 1_000, messages: 60, seed: 0x48_02 },
  { requestsPerSecond: 20, lockDuration: 1_000, messages: 60, seed: 0x48_06 },
  { requestsPerSecond: 1, lockDuration: undefined, messages: 6, seed: 0x48_04 },
  { requestsPerSecond: 20, lockDuration: undefined, messages: 60, seed: 0x48_03 },
];

describe.runIf(available)('a Redis frozen while sends wait at the fleet gate', () => {
  it.each(CASES)(
    'at $requestsPerSecond/s, lock $lockDuration ms (seed $seed): none sent twice, one final status each',
    async (c) => {
      const server = await startRedis();
      servers.push(server);
      const result = await runFreeze(server, c);
      expect(result.posts).toBeGreaterThan(0);
    },
    120_000,
  );
});
