/**
 * A PostgreSQL frozen (SIGSTOP, the postmaster and every backend) while sends wait at the fleet
 * gate: a job whose lock expired meanwhile never POSTs once another worker has taken it
 * (lock-lost-run.ts). At 1/s and 20/s, with short locks that the freeze outlasts and with
 * BullMQ's default, at seeded moments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, startPostgresWithBullmq, type TestPostgres } from '../../helpers/postgres.js';
import { type FreezeCase, runFreeze } from './lock-lost-run.js';

const available = postgresAvailable();
let db: TestPostgres;
beforeAll(async () => {
  if (available) db = await startPostgresWithBullmq();
}, 60_000);
afterAll(async () => {
  await db?.stop();
});

const CASES: readonly FreezeCase[] = [
  { requestsPerSecond: 1, lockDuration: 1_500, messages: 6, seed: 0x48_14 },
  { requestsPerSecond: 20, lockDuration: 1_000, messages: 60, seed: 0x48_12 },
  { requestsPerSecond: 20, lockDuration: 1_000, messages: 60, seed: 0x48_16 },
  { requestsPerSecond: 1, lockDuration: undefined, messages: 6, seed: 0x48_15 },
  { requestsPerSecond: 20, lockDuration: undefined, messages: 60, seed: 0x48_13 },
];

describe.runIf(available)('a PostgreSQL frozen while sends wait at the fleet gate', () => {
  it.each(CASES)(
    'at $requestsPerSecond/s, lock $lockDuration ms (seed $seed): none sent twice, one final status each',
    async (c) => {
      const connection = { postgres: { connectionString: db.url, max: 4 } };
      const result = await runFreeze({ connection, pause: () => db.pause(), resume: () => db.resume() }, c);
      expect(result.posts).toBeGreaterThan(0);
    },
    120_000,
  );
});
