import type { RedisClient } from 'bullmq';
import type { PlaceStore } from '../types.js';
import ADMIT from './fleet-admit.lua';
import RENEW from './fleet-renew.lua';
import RESERVE from './fleet-reserve.lua';
import SETTLE from './fleet-settle.lua';

const ADMIT_COMMAND = 'tenantMessagingFleetAdmit';
const SETTLE_COMMAND = 'tenantMessagingFleetSettle';
const RESERVE_COMMAND = 'tenantMessagingFleetReserve';
const RENEW_COMMAND = 'tenantMessagingFleetRenew';

/**
 * The fleet gate's places in one Redis sorted set (member → when its place ends), each step one
 * Lua script, so that reading the count and adding a member are one atomic step. Defined through
 * BullMQ's client interface, so that any of its Redis adapters can run them.
 */
export function redisPlaces(client: Promise<RedisClient>, key: string): PlaceStore {
  const redis = client.then((c) => {
    c.defineCommand(ADMIT_COMMAND, { numberOfKeys: 1, lua: ADMIT });
    c.defineCommand(SETTLE_COMMAND, { numberOfKeys: 1, lua: SETTLE });
    c.defineCommand(RESERVE_COMMAND, { numberOfKeys: 1, lua: RESERVE });
    c.defineCommand(RENEW_COMMAND, { numberOfKeys: 1, lua: RENEW });
    return c;
  });
  redis.catch(() => undefined); // each use reports a failed connection; one never used must not leave it unhandled
  return {
    admit: async (member, limit, leaseMs) =>
      Number(await (await redis).runCommand(ADMIT_COMMAND, [key, limit, leaseMs, member])),
    settle: async (member, windowMs) => {
      await (await redis).runCommand(SETTLE_COMMAND, [key, windowMs, member]);
    },
    renew: async (member, leaseMs) =>
      Number(await (await redis).runCommand(RENEW_COMMAND, [key, leaseMs, member])) === 1,
    // Beside the places, in the same hash slot (the key's own hash tag): the lane's next turn.
    reserve: async (estimateMs, windowMs, limit) =>
      Number(await (await redis).runCommand(RESERVE_COMMAND, [`${key}:turn`, estimateMs, windowMs, limit])),
    // Each key expires a lease after its last admission (fleet-admit.lua): nothing to sweep.
    sweep: async () => undefined,
  };
}
