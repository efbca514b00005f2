/**
 * The only code that knows Redis from PostgreSQL. A `Store` is a queue's datastore as the rest of
 * tenant-messaging/bullmq uses it, beside BullMQ's own tables or keys: the fleet gate's places, the
 * update log, the guard that refuses a datastore that can lose sends and reports one that did. Each
 * datastore has an adapter (redis/, postgres/): the Lua and the SQL live in files of their own, and
 * postgres/schema.sql is every table the SDK needs there, created by `migrate()`. One conformance
 * suite (test/integration/bullmq/store/conformance.test.ts) holds both adapters to the same promises, as
 * BullMQ's adapter-conformance suite does for its own backends.
 */
import type { Queue, RedisClient } from 'bullmq';
import type { BullMQModule } from '../load.js';
import type { Backend } from './backend.js';
import { durableGuard } from './guard.js';
import { postgresOwnedWrites } from './postgres/owned-writes.js';
import { postgresPlaces } from './postgres/places.js';
import { poolOf, schemaReady } from './postgres/schema.js';
import { postgresUpdateLog } from './postgres/update-log.js';
import { redisGuard } from './redis/guard.js';
import { redisOwnedWrites } from './redis/owned-writes.js';
import { redisPlaces } from './redis/places.js';
import { redisPrimary, redisReplication } from './redis/replication.js';
import { redisUpdateLog } from './redis/update-log.js';

import type { GuardOptions, Replication, Store } from './types.js';

/** PostgreSQL commits durably: nothing a failover rolls back, nothing to wait for. */
const durableReplication: Replication = {
  confirm: async () => 'durable',
  enqueued: () => undefined,
  close: async () => undefined,
};

/** The store of `queue`, a BullMQ queue on `backend`. */
export function storeOf(bull: BullMQModule, backend: Backend, queue: Queue): Store {
  if (backend.kind === 'postgres') {
    const pool = poolOf(queue);
    const ready = schemaReady(pool);
    return {
      kind: 'postgres',
      places: (lane) => postgresPlaces(pool, ready, lane === undefined ? queue.name : `${queue.name}:lane:${lane}`),
      updates: () => postgresUpdateLog(pool, ready, queue.name),
      guard: () => durableGuard,
      ownedWrites: () => postgresOwnedWrites(pool, queue.name),
      replication: () => durableReplication,
    };
  }
  const client = queue.getBackend().client as Promise<RedisClient>;
  // One per store, made at first use. On a Cluster it asks the master of the queue's one slot.
  let replication: ReturnType<typeof redisReplication> | undefined;
  const replicationOf = (options: GuardOptions) => {
    const isCluster = (backend.connection as { isCluster?: unknown }).isCluster === true;
    replication ??= redisReplication(client, redisPrimary(client, isCluster, queue.toKey('tm-barrier')), {
      queue: queue.name,
      toKey: (type) => queue.toKey(type),
      logger: options.logger,
    });
    return replication;
  };
  return {
    kind: 'redis',
    places: (lane) => redisPlaces(client, queue.toKey(lane === undefined ? 'fleet-requests' : `fleet-lane:${lane}`)),
    updates: () => redisUpdateLog(bull, backend, queue),
    guard: (options) =>
      redisGuard(
        client,
        {
          queue: queue.name,
          key: queue.toKey('tm-marker'),
          allowUnsafe: options.allowUnsafeDatastore === true,
          logger: options.logger,
        },
        replicationOf(options).watch,
      ),
    ownedWrites: () => redisOwnedWrites(client, (id) => queue.toKey(id)),
    replication: (options) => replicationOf(options),
  };
}
