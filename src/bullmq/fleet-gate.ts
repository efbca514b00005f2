import type { RedisClient } from 'bullmq';
import { sleep } from '../internal/sleep.js';

/**
 * The fleet's hard bound: no sliding second at the service holds more than `limit` requests of
 * the fleet, whenever the service counts each one between its first byte and its answer, and
 * however long requests are held, workers stalled, or killed.
 *
 * Why not only BullMQ's limiter: it counts job STARTS, and a request is counted by the service at
 * some moment between its start and its answer. A send held 300 ms (a slow upload, a proxy that
 * buffers the body, a busy service) is counted 300 ms after a poll that started with it, so a
 * second at the service gathers starts from a span longer than a second (measured: 25 in one
 * second at a limit of 20, no crash needed).
 *
 * How: one sorted set in Redis holds a member per request, from its admission until one second
 * after its answer (a killed worker's open request: until its lease ends). A request is admitted
 * only while fewer than `limit` members remain. Take any second at the service and the last of
 * its requests to be admitted: every other request counted in that second had been admitted
 * earlier, and its answer came after the second began, so less than a second before that
 * admission: its member was still there. So the second holds at most `limit`. Every timestamp
 * is Redis's (TIME), so the workers' clocks do not matter.
 *
 * The cost: a request holds its place for its own duration plus a second, so the fleet makes at
 * most `limit * 1000 / (1000 + r)` requests a second when answers take `r` ms (README).
 */
export interface FleetGate {
  /** Runs `request` once admitted; its place is kept one second past its end. */
  run<T>(request: () => Promise<T>): Promise<T>;
}

/** The window the service counts in: the tenant limit is per second. */
const WINDOW_MS = 1000;

/**
 * KEYS[1] the set; ARGV: limit, lease (ms an open request may hold its place), member.
 * Returns 0 when admitted, else the ms until the earliest place frees (at least 1).
 */
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

const ADMIT_COMMAND = 'tenantMessagingFleetAdmit';
const SETTLE_COMMAND = 'tenantMessagingFleetSettle';

/** KEYS[1] the set; ARGV: window, member. The member's place now ends `window` ms from now. */
const SETTLE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
return 0
`;

export interface FleetGateOptions {
  /** The queue's Redis connection (BullMQ's `queue.client`). */
  readonly redis: Promise<RedisClient>;
  /** The set's key, in the queue's own key space. */
  readonly key: string;
  /** Requests per sliding second, for the whole fleet. */
  readonly limit: number;
  /**
   * How long an open request may hold its place (ms): the client's timeout, after which a live
   * worker has given up on it. A killed worker's open requests keep their places this long.
   */
  readonly requestTimeout: number;
  readonly random?: () => number;
  /** Told when settling fails (Redis gone): the place then ends with its lease. */
  readonly onSettleError?: (error: unknown) => void;
}

export function createFleetGate(options: FleetGateOptions): FleetGate {
  const { key, limit, requestTimeout, random = Math.random } = options;
  const lease = requestTimeout + 2 * WINDOW_MS;
  let next = 0;
  const prefix = `${process.pid}:${Date.now().toString(36)}:${random().toString(36).slice(2, 8)}`;

  // Defined through BullMQ's client interface, so that any of its Redis adapters can run them.
  const redis = options.redis.then((client) => {
    client.defineCommand(ADMIT_COMMAND, { numberOfKeys: 1, lua: ADMIT });
    client.defineCommand(SETTLE_COMMAND, { numberOfKeys: 1, lua: SETTLE });
    return client;
  });

  const admit = async (client: RedisClient, member: string): Promise<void> => {
    for (;;) {
      const wait = Number(await client.runCommand(ADMIT_COMMAND, [key, limit, lease, member]));
      if (wait === 0) return;
      // An open request's place frees a second after its answer at the earliest, so waking within
      // a second misses no place; the jitter keeps waiting workers from asking in the same instant.
      const ms = Math.min(wait, WINDOW_MS) + Math.floor(random() * 10);
      await sleep(ms);
    }
  };

  return {
    async run(request) {
      const client = await redis;
      const member = `${prefix}:${next++}`;
      await admit(client, member);
      try {
        return await request();
      } finally {
        try {
          await client.runCommand(SETTLE_COMMAND, [key, WINDOW_MS, member]);
        } catch (error) {
          options.onSettleError?.(error);
        }
      }
    },
  };
}

/** No fleet limit: the request runs at once. */
export const openGate: FleetGate = { run: (request) => request() };
