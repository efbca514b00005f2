import type { RedisClient } from 'bullmq';
import type { Logger } from '../../../index.js';
import { DatastoreError, NAMED_IDS, namedIds } from '../../errors.js';
import { CHECK_MS } from '../guard.js';
import type { ReplicationReader } from './replication-info.js';

/** Ids kept at most: past it the oldest are dropped, and a loss among them is reported as a count. */
export const MAX_KEPT_IDS = 10_000;

/** How far the producer's clock and the datastore's may differ, when an event's time is compared with a bucket's. */
const SKEW_MS = 5_000;

/** Ids enqueued between two readings of the replication offset, and where the stream stood after them. */
interface Bucket {
  readonly ids: string[];
  offset: number;
  readonly at: Date;
}

export interface WatchSettings {
  readonly queue: string;
  /** A job's key, from its id. */
  readonly keyOf: (id: string) => string;
  readonly logger: Logger | undefined;
}

/**
 * Finds the enqueues of this process that a failover rolled back. It keeps the ids enqueued since
 * the last point the replicas are known to hold (the primary's replication offset read after
 * them, compared with the offset every replica acknowledged, about once a second); when the
 * primary's replication id changes (a replica promoted, or a restart), it asks the new primary
 * which of the kept ids it holds, and reports the missing ones to every listener, once.
 */
export function rollbackWatch(client: Promise<RedisClient>, reader: ReplicationReader, settings: WatchSettings) {
  const listeners = new Set<(error: DatastoreError) => void>();
  /** Sealed buckets, oldest first, then the open one (offset -1) that new ids go to. */
  let buckets: Bucket[] = [];
  let replid: string | undefined;
  let dropped = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  let looking = false;
  /** Raised each time the guard reports that the datastore forgot everything (see `forgot`). */
  let generation = 0;

  const kept = () => buckets.reduce((sum, bucket) => sum + bucket.ids.length, 0);
  const report = (error: DatastoreError) => {
    settings.logger?.error('MessagingQueue: a failover rolled back enqueued sends', {
      queue: settings.queue,
      ids: error.ids.slice(0, NAMED_IDS),
      count: error.ids.length,
    });
    for (const listener of listeners) listener(error);
  };

  /**
   * The kept ids the primary reached now does not hold, and whose adding it never saw: a job gone
   * whose `added` event (no older than its bucket, give or take the clocks' skew) the queue's
   * event stream still holds was removed (finished, cancelled), not rolled back.
   */
  const missing = async (kept: readonly Bucket[]): Promise<string[]> => {
    const redis = (await client) as unknown as Lookups;
    const ids = kept.flatMap((bucket) => bucket.ids);
    const held = await Promise.all(ids.map((id) => redis.exists(settings.keyOf(id))));
    const gone = ids.filter((_, i) => held[i] === 0);
    if (gone.length === 0) return gone;
    const since = new Map(
      kept.flatMap((bucket) => bucket.ids.map((id) => [id, bucket.at.getTime() - SKEW_MS] as const)),
    );
    const added = new Set<string>();
    for (const [eventId, fields] of await redis.xrange(settings.keyOf('events'), '-', '+')) {
      const id = fields[fields.indexOf('jobId') + 1];
      const at = Number(eventId.split('-')[0]);
      if (fields[fields.indexOf('event') + 1] === 'added' && id !== undefined && at >= (since.get(id) ?? at + 1))
        added.add(id);
    }
    return gone.filter((id) => !added.has(id));
  };

  const look = async () => {
    if (looking) return;
    looking = true;
    const lookedIn = generation;
    try {
      // Every bucket still open is closed before the reading is asked for: an id in it was
      // acknowledged before the reading was sent, so the offset read covers it. Ids enqueued from
      // here on go to a new bucket (their writes may come after the reading).
      const sealing = buckets.filter((bucket) => bucket.offset === -1);
      if (sealing.length > 0) buckets.push({ ids: [], offset: -1, at: new Date() });
      const info = await reader.info(true);
      const failedOver = replid !== undefined && info.replid !== replid;
      // A reading of the primary that took over says nothing of where the old one's stream stood.
      if (!failedOver) for (const bucket of sealing) bucket.offset = info.offset;
      if (failedOver) {
        // Every id kept is looked up, those enqueued since the reading was asked for included (a
        // primary that died may have acknowledged them), but those the promoted replica is known
        // to have received (sealed below where its own stream took over). Those enqueued during
        // the lookup, on the new primary, go to a new bucket and stay kept.
        const looked = [...buckets];
        buckets.push({ ids: [], offset: -1, at: new Date() });
        const received = info.replid2 === replid && info.secondOffset > 0 ? info.secondOffset - 1 : -1;
        const since = looked[0]?.at ?? new Date();
        const lost = await missing(looked.filter((bucket) => bucket.offset === -1 || bucket.offset > received));
        const unknown = dropped;
        buckets = buckets.filter((bucket) => !looked.includes(bucket));
        dropped = 0;
        replid = info.replid;
        // A look begun before the guard reported the datastore forgot everything says no more.
        if (lookedIn !== generation) return;
        if (lost.length > 0 || unknown > 0) report(rolledBack(settings.queue, lost, unknown, since));
      } else {
        replid = info.replid;
        // Safe: what every replica that may still be promoted holds, one that dropped out included.
        const safe = reader.safeOffset(info);
        buckets = buckets.filter((bucket) => bucket.offset === -1 || (bucket.offset > safe && bucket.ids.length > 0));
      }
    } catch {
      // The primary cannot be reached now (a failover under way): the next look tries again.
    } finally {
      looking = false;
      if (kept() === 0 && buckets.length <= 1) {
        clearInterval(timer);
        timer = undefined;
      }
    }
  };

  return {
    /** The replication id the guard read before any enqueue: a failover after it is noticed. */
    baseline(id: string): void {
      replid ??= id;
    },
    enqueued(ids: readonly string[]): void {
      if (ids.length === 0) return;
      let open = buckets.at(-1);
      if (open?.offset !== -1) {
        open = { ids: [], offset: -1, at: new Date() };
        buckets.push(open);
      }
      open.ids.push(...ids);
      // Bounded: the oldest go first (counted, so that a loss among them is still reported).
      for (let excess = kept() - MAX_KEPT_IDS; excess > 0; ) {
        const oldest = buckets[0] as Bucket;
        const cut = Math.min(excess, oldest.ids.length);
        oldest.ids.splice(0, cut);
        dropped += cut;
        excess -= cut;
        if (oldest.ids.length === 0 && buckets.length > 1) buckets.shift();
      }
      // Not what keeps a producer alive: its connection is.
      timer ??= setInterval(() => void look(), CHECK_MS).unref();
    },
    /**
     * The guard found the datastore had forgotten everything (a restart without persistence, a
     * flush) and reported it, with the moment since when sends may be lost: that one report covers
     * every id kept here. A restart changes the replication id too, which would otherwise read as
     * a failover and report the same loss again, in a failover's words. Nothing kept, and the next
     * reading is the baseline.
     */
    forgot(): void {
      generation += 1;
      buckets = [];
      dropped = 0;
      replid = undefined;
    },
    /** Hears of every rollback found from now on; the answer stops that. */
    listen(listener: (error: DatastoreError) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close(): void {
      clearInterval(timer);
      timer = undefined;
      listeners.clear();
    },
  };
}

export type RollbackWatch = ReturnType<typeof rollbackWatch>;

/** ioredis's commands the lookup uses (BullMQ's client type declares neither). */
interface Lookups {
  exists(key: string): Promise<number>;
  xrange(key: string, start: string, end: string): Promise<[string, string[]][]>;
}

function rolledBack(queue: string, ids: readonly string[], unknown: number, since: Date): DatastoreError {
  const untracked =
    unknown > 0
      ? ` Besides, ${unknown} older ids were no longer kept (more than ${MAX_KEPT_IDS} awaited the replicas): sends enqueued since ${since.toISOString()} may be among the lost.`
      : '';
  return new DatastoreError(
    'rolled-back',
    `A failover of the datastore rolled back ${ids.length} sends this process had enqueued on queue '${queue}'${ids.length > 0 ? ` (ids: ${namedIds(ids, ' (all in error.ids)')})` : ''}: the primary that acknowledged them died before a replica received them, and the replica promoted holds no trace of them.${untracked} Enqueue them again with the same ids (one still stored is not stored twice). This call did nothing.`,
    { ids, since },
  );
}
