import type { RedisClient } from 'bullmq';
import type { OwnedWrites } from '../types.js';
import OWNED_WRITE from './owned-write.lua';

const OWNED_WRITE_COMMAND = 'tenantMessagingOwnedWrite';

/**
 * A job's data written under its lock, one Lua script: BullMQ keeps a job's lock token at
 * `<job key>:lock` (same hash tag, so the same Cluster slot). `toKey` is the queue's own.
 */
export function redisOwnedWrites(client: Promise<RedisClient>, toKey: (id: string) => string): OwnedWrites {
  const redis = client.then((c) => {
    c.defineCommand(OWNED_WRITE_COMMAND, { numberOfKeys: 2, lua: OWNED_WRITE });
    return c;
  });
  redis.catch(() => undefined); // each write reports a failed connection
  return {
    async write(id, token, data) {
      const key = toKey(id);
      const answer = Number(
        await (await redis).runCommand(OWNED_WRITE_COMMAND, [key, `${key}:lock`, token, JSON.stringify(data)]),
      );
      return answer === 1 ? 'written' : answer === 0 ? 'lost' : 'gone';
    },
  };
}
