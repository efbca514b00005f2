/**
 * A Redis frozen (SIGSTOP) while sends wait at the fleet gate: a job whose lock expired meanwhile
 * never POSTs once another worker has taken it (lock-lost-run.ts). At 1/s and 20/s, with short
 * locks that the freeze outlasts and with BullMQ's default, at seeded moments.
 */
import { afterAll, describe } from 'vitest';
import { redisAvailable, startRedis, type TestRedis } from '../../../helpers/redis.js';
import { itFreezes } from './lock-lost-run.js';

const available = redisAvailable();
const servers: TestRedis[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

describe.runIf(available)('a Redis frozen while sends wait at the fleet gate', () => {
  // A server per run: the runs go at once, and a freeze stops the whole server.
  itFreezes(async () => {
    const server = await startRedis();
    servers.push(server);
    return server;
  }, [0x48_01, 0x48_02, 0x48_06, 0x48_04, 0x48_03]);
});
