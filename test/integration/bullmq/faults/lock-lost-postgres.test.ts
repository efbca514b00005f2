/**
 * A PostgreSQL frozen (SIGSTOP, the postmaster and every backend) while sends wait at the fleet
 * gate: a job whose lock expired meanwhile never POSTs once another worker has taken it
 * (lock-lost-run.ts). At 1/s and 20/s, with short locks that the freeze outlasts and with
 * BullMQ's default, at seeded moments.
 */
import { afterAll, describe } from 'vitest';
import { postgresAvailable, startPostgresWithBullmq, type TestPostgres } from '../../../helpers/postgres.js';
import { itFreezes } from './lock-lost-run.js';

const available = postgresAvailable();
const servers: TestPostgres[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

describe.runIf(available)('a PostgreSQL frozen while sends wait at the fleet gate', () => {
  // A cluster per run: the runs go at once, and a freeze stops every connection to its server.
  itFreezes(async () => {
    const db = await startPostgresWithBullmq();
    servers.push(db);
    return {
      connection: { postgres: { connectionString: db.url, max: 4 } },
      pause: () => db.pause(),
      resume: () => db.resume(),
    };
  }, [0x48_14, 0x48_12, 0x48_16, 0x48_15, 0x48_13]);
});
