import type { RedisClient } from 'bullmq';
import type { Logger } from '../../../index.js';
import type { Replication, ReplicaWait } from '../types.js';
import { clusterPrimary } from './cluster-primary.js';
import { type Link, ownLink, redisConfirmer } from './confirm.js';
import { clientInfo, type InfoSource, replicationReader } from './replication-info.js';
import { type RollbackWatch, rollbackWatch } from './rollback-watch.js';

export interface ReplicationSettings {
  readonly queue: string;
  /** A key of the queue's key space, from its last part (BullMQ's `queue.toKey`). */
  readonly toKey: (type: string) => string;
  readonly logger: Logger | undefined;
}

/**
 * Where the defences ask: the primary that holds the queue's data now. `ownBaseline`: the watch
 * takes its first replication id itself (on a Cluster the guard reads every master, not this one).
 */
export interface RedisPrimary {
  readonly info: InfoSource;
  readonly link: Link;
  readonly ownBaseline: boolean;
}

/**
 * A single Redis or one behind Sentinel (ioredis follows its primary); or, on a Cluster, the
 * master of the slot that holds every key of the queue (`key`, one of them).
 */
export function redisPrimary(client: Promise<RedisClient>, isCluster: boolean, key: string): RedisPrimary {
  if (isCluster) return { ...clusterPrimary(client, key), ownBaseline: true };
  return { info: clientInfo(client), link: ownLink(client), ownBaseline: false };
}

/** The script's check alone: WAIT 0 answers at once. */
const NO_WAIT: ReplicaWait = Object.freeze({ replicas: 0, timeout: 0 });

/**
 * A Redis queue's defences against a failover that drops writes (store/README.md): confirming a
 * write on replicas before a step that must not be undone (`confirm`), and finding the enqueues of
 * this process that a failover rolled back (`enqueued`, reported through the guards).
 */
export function redisReplication(
  client: Promise<RedisClient>,
  primary: RedisPrimary,
  settings: ReplicationSettings,
): Replication & { readonly watch: RollbackWatch } {
  const reader = replicationReader(primary.info);
  const confirmer = redisConfirmer(primary.link, settings.toKey('tm-barrier'));
  const watch = rollbackWatch(client, reader, {
    queue: settings.queue,
    keyOf: settings.toKey,
    logger: settings.logger,
  });
  // Before this process enqueues anything (made with the queue's guard): a failover after it is noticed.
  if (primary.ownBaseline)
    reader.info().then(
      (info) => watch.baseline(info.replid),
      () => undefined,
    );
  return {
    watch,
    async confirm(id, marks, wait) {
      const info = await reader.info();
      // A replica that dropped out a moment ago may still be promoted: its WAIT is waited for.
      if (reader.mayHaveReplica(info)) return confirmer.confirm(settings.toKey(id), marksOf(marks), wait);
      if (!reader.replicated()) return 'no-replica';
      // No replica now, after a failover: nothing can roll this primary back, but the write may
      // have gone to the primary before it (the one that failed), so this one is asked for it.
      const found = await confirmer.confirm(settings.toKey(id), marksOf(marks), NO_WAIT);
      return found === 'missing' ? 'missing' : 'no-replica';
    },
    enqueued: (ids) => watch.enqueued(ids),
    async close() {
      watch.close();
      await confirmer.close();
    },
  };
}

/**
 * Marks as substrings of the job's data as BullMQ stores it (JSON.stringify of the data): `"k":v`.
 * A mark cannot match inside a string value, where every `"` is escaped.
 */
function marksOf(marks: Readonly<Record<string, string | number>> | undefined): string {
  return Object.entries(marks ?? {})
    .map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`)
    .join('\n');
}
