/** What a reading of the primary's `INFO replication` says of its replicas (`ReplicaReading`). */
export interface ReplicaReading {
  /** The primary's replication id: a new one after a failover (or a restart). */
  readonly replid: string;
  /** Replicas connected now (`connected_slaves`). */
  readonly replicas: number;
  /** Per replica listed ("ip:port"), the offset it acknowledged (-1 when it is not online: syncing). */
  readonly listed: ReadonlyMap<string, number>;
  /** Whether the server keeps a replication backlog (`repl_backlog_active`): it has, or had, a replica. */
  readonly backlog: boolean;
}

/**
 * How long a replica that dropped out of a primary (a restart, a link broken by lag, by the
 * primary's output-buffer limit, or killed) is still counted on: Sentinel may promote it meanwhile,
 * with whatever it had. Sentinel's own rule refuses a replica disconnected for more than
 * 10 × down-after-milliseconds (30 s by default): 5 minutes.
 */
export const REPLICA_GONE_MS = 300_000;

/** A primary's replica as this process last saw it: what it acknowledged, and since when it is missing. */
interface Remembered {
  offset: number;
  missingSince: number | undefined;
}

/** A replica no reading showed: one that may have dropped out before this process first looked. */
const UNSEEN = '';

/**
 * The replicas of the primary in charge that a failover could still promote, and what each holds
 * at least, from the readings of its `INFO replication`. A replica that drops out (its line gone
 * from INFO) is still counted, with the offset it last acknowledged (it holds at least that),
 * until `REPLICA_GONE_MS` after the first reading that missed it: the moment it dropped out is
 * not known better, however long this process went without a reading. A replica may have
 * dropped out just before this process's first reading of a primary that keeps a replication
 * backlog (it has or had a replica): it is counted, for `REPLICA_GONE_MS`, as holding nothing
 * known. A new replication id (a failover) starts over, as a first reading. Past
 * `REPLICA_GONE_MS` a replica that left is no longer waited for (`seen`), but its return through
 * the backlog is still reckoned with (`safeOffset`).
 */
export function replicaMemory(now: () => number) {
  let replid: string | undefined;
  const replicas = new Map<string, Remembered>();
  /** The replicas that may be promoted now, when `info` is a reading of the primary remembered. */
  const promotable = (info: ReplicaReading): Remembered[] => {
    if (info.replid !== replid) return [];
    const at = now();
    return [...replicas.values()].filter(
      (replica) => replica.missingSince === undefined || at - replica.missingSince < REPLICA_GONE_MS,
    );
  };
  return {
    /** A new reading of the primary's `INFO replication`. */
    note(info: ReplicaReading): void {
      const at = now();
      if (info.replid !== replid) {
        replicas.clear();
        replid = info.replid;
        if (info.backlog) replicas.set(UNSEEN, { offset: -1, missingSince: at });
      }
      for (const [address, offset] of info.listed) {
        // One listed but not online (syncing) still holds what it had acknowledged before.
        const held = offset >= 0 ? offset : (replicas.get(address)?.offset ?? -1);
        replicas.set(address, { offset: held, missingSince: undefined });
      }
      for (const [address, replica] of replicas) {
        if (info.listed.has(address)) continue;
        replica.missingSince ??= at;
        if (at - replica.missingSince >= REPLICA_GONE_MS) replicas.delete(address);
      }
    },
    /** Whether a replica this process saw on the primary of `info` may still be promoted (listed now, or missing for less than `REPLICA_GONE_MS`). */
    seen(info: ReplicaReading): boolean {
      return info.replicas > 0 || promotable(info).some((replica) => replica !== replicas.get(UNSEEN));
    },
    /**
     * The replication offset every replica that may be promoted holds at least: a write on the
     * primary of `info` at or below it survives any failover. With none known, nothing is safe on
     * a primary that keeps a backlog: a replica that left may come back through it (a partial
     * resync) holding less, and be promoted before it caught up. Everything is, on one without.
     */
    safeOffset(info: ReplicaReading): number {
      const offsets = promotable(info).map((replica) => replica.offset);
      if (offsets.length === 0) return info.backlog ? -1 : Number.POSITIVE_INFINITY;
      return Math.min(...offsets);
    },
  };
}
