/**
 * The fleet gate's waiting, on a real Redis: many sends waiting in one process ask the datastore
 * one at a time (no herd at each place's end), and no sliding second of admissions holds more
 * than the limit.
 */
import { Queue, type RedisClient } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetGate } from '../../../../src/bullmq/fleet/gate.js';
import { redisPlaces } from '../../../../src/bullmq/store/redis/places.js';
import type { PlaceStore } from '../../../../src/bullmq/store/types.js';
import { startRedis, type TestRedis } from '../../../helpers/redis.js';
import { runs } from '../fixture.js';

let redis: TestRedis;
let queue: Queue;
beforeAll(async () => {
  if (!runs) return;
  redis = await startRedis();
  // BullMQ's own client (the interface the places' scripts are defined through), as the worker's.
  queue = new Queue(`gate-line-${Date.now()}`, { connection: redis.connection });
});
afterAll(async () => {
  await queue?.close();
  await redis?.stop();
});

/** The store, with its admissions counted: how many, and the most at once. */
function counted(store: PlaceStore) {
  const seen = { admits: 0, open: 0, mostAtOnce: 0 };
  const places: PlaceStore = {
    ...store,
    admit: async (...args) => {
      seen.admits++;
      seen.mostAtOnce = Math.max(seen.mostAtOnce, ++seen.open);
      try {
        return await store.admit(...args);
      } finally {
        seen.open--;
      }
    },
  };
  return { places, seen };
}

describe.runIf(runs)('the fleet gate', () => {
  it('40 sends waiting in one process for 10 places: one admission asks at a time, about one ask per send, no second above 10', async () => {
    const LIMIT = 10;
    const SENDS = 40;
    const ANSWER_MS = 5;
    const { places, seen } = counted(
      redisPlaces(queue.getBackend().client as Promise<RedisClient>, queue.toKey('fleet-requests')),
    );
    const gate = createFleetGate({ places, limit: LIMIT, requestTimeout: 2_000 });
    const started: number[] = [];
    await Promise.all(
      Array.from({ length: SENDS }, () =>
        gate.run(async () => {
          started.push(Date.now());
          // The answer's time is the behaviour here: each request holds its place that long.
          await new Promise((resolve) => setTimeout(resolve, ANSWER_MS));
        }),
      ),
    );
    expect(seen.mostAtOnce).toBe(1);
    // Each send asks once when its turn comes, and the head again only when every place was still
    // open: about 1.2 asks a send. Every waiting send asking at each place's end (a herd) is about
    // 4 asks a send here, all 40 at once.
    expect(seen.admits).toBeLessThanOrEqual(2 * SENDS);
    started.sort((a, b) => a - b);
    // Load cannot break this bound: each start is stamped after its admission and before its
    // settle, and a place ends a second after its settle (on the one clock of this machine).
    const busiest = Math.max(...started.map((t) => started.filter((u) => u >= t && u < t + 1000).length));
    expect(busiest).toBeLessThanOrEqual(LIMIT);
    // Three more rounds after the first, each a second past an answer at the least (a lower bound:
    // load only lengthens it). The share of the rule reached is a rate: bench section 15 measures it.
    expect((started.at(-1) as number) - (started[0] as number)).toBeGreaterThanOrEqual(3 * 1000);
  });
});
