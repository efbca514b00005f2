import type { RedisClient } from 'bullmq';
import { type PgPoolLike, pgSetUp } from './pg-setup.js';

/**
 * Where the fleet gate keeps its places (fleet-gate.ts): one member per admitted request, each
 * with the time its place ends, every time taken from the datastore's own clock.
 */
export interface PlaceStore {
  /**
   * Drops the places that ended; admits `member` if fewer than `limit` remain, its place lasting
   * `leaseMs`. Resolves with 0 when admitted, else the ms until the earliest place ends (>= 1).
   */
  admit(member: string, limit: number, leaseMs: number): Promise<number>;
  /** The member's place now ends `windowMs` from now (its answer came). */
  settle(member: string, windowMs: number): Promise<void>;
}

/** KEYS[1] the set; ARGV: limit, lease, member. 0 when admitted, else ms until a place frees. */
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
  return 0
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(first[2]) - now)
`;

/** KEYS[1] the set; ARGV: window, member. The member's place now ends `window` ms from now. */
const SETTLE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
return 0
`;

const ADMIT_COMMAND = 'tenantMessagingFleetAdmit';
const SETTLE_COMMAND = 'tenantMessagingFleetSettle';

/**
 * The places in one Redis sorted set (member → end), each step one Lua script, so that reading
 * the count and adding a member are one atomic step. Defined through BullMQ's client interface,
 * so that any of its Redis adapters can run them.
 */
export function redisPlaces(client: Promise<RedisClient>, key: string): PlaceStore {
  const redis = client.then((c) => {
    c.defineCommand(ADMIT_COMMAND, { numberOfKeys: 1, lua: ADMIT });
    c.defineCommand(SETTLE_COMMAND, { numberOfKeys: 1, lua: SETTLE });
    return c;
  });
  return {
    admit: async (member, limit, leaseMs) =>
      Number(await (await redis).runCommand(ADMIT_COMMAND, [key, limit, leaseMs, member])),
    settle: async (member, windowMs) => {
      await (await redis).runCommand(SETTLE_COMMAND, [key, windowMs, member]);
    },
  };
}

/**
 * The table and function, created in the queue's schema (the first of the connection's
 * `search_path`, as BullMQ's own tables are) under an advisory lock, so that workers starting
 * together create them once. UNLOGGED: places live seconds, and a crashed server forgetting them
 * only frees the gate early once.
 */
const SETUP = `
CREATE UNLOGGED TABLE IF NOT EXISTS tenant_messaging_fleet_place (
  key text NOT NULL,
  member text NOT NULL,
  ends_at timestamptz NOT NULL,
  PRIMARY KEY (key, member)
);
CREATE OR REPLACE FUNCTION tenant_messaging_fleet_admit(p_key text, p_limit integer, p_lease_ms bigint, p_member text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz;
  v_count integer;
  v_first timestamptz;
BEGIN
  -- One admission at a time per gate: counting and adding are one step, as the Redis script is.
  PERFORM pg_advisory_xact_lock(hashtextextended('tenant-messaging:fleet:' || p_key, 0));
  v_now := clock_timestamp(); -- read once the lock is held, not before waiting for it
  DELETE FROM tenant_messaging_fleet_place WHERE key = p_key AND ends_at <= v_now;
  SELECT count(*), min(ends_at) INTO v_count, v_first FROM tenant_messaging_fleet_place WHERE key = p_key;
  IF v_count < p_limit THEN
    INSERT INTO tenant_messaging_fleet_place VALUES (p_key, p_member, v_now + p_lease_ms * interval '1 millisecond');
    RETURN 0;
  END IF;
  RETURN greatest(1, ceil(extract(epoch FROM (v_first - v_now)) * 1000))::bigint;
END
$$;
`;

/** The places in a PostgreSQL table, admission one function call (one round trip). */
export function postgresPlaces(pool: PgPoolLike, key: string): PlaceStore {
  const prepared = pgSetUp(pool, 'tenant-messaging:fleet-setup', SETUP);
  return {
    admit: async (member, limit, leaseMs) => {
      await prepared();
      const { rows } = await pool.query('SELECT tenant_messaging_fleet_admit($1, $2, $3, $4) AS wait', [
        key,
        limit,
        leaseMs,
        member,
      ]);
      return Number(rows[0]?.['wait']);
    },
    settle: async (member, windowMs) => {
      await pool.query(
        `UPDATE tenant_messaging_fleet_place SET ends_at = clock_timestamp() + $3 * interval '1 millisecond' WHERE key = $1 AND member = $2`,
        [key, member, windowMs],
      );
    },
  };
}
