import type { Logger, SentParams } from '../../index.js';
import type { Backend } from './backend.js';
import type { DatastoreGuard } from './guard.js';
import type { UpdateLog } from './update-log.js';

/** Media as a job stores it: a path that workers re-open, or the bytes in base64. */
export type StoredMedia =
  | { readonly path: string; readonly filename: string; readonly contentType: string }
  | { readonly base64: string; readonly filename: string; readonly contentType: string };

/**
 * Send parameters as a job stores them: plain JSON. Here, with what the datastore holds, so that
 * every layer above the store reads them without importing the send's code.
 */
export type StoredParams = Omit<SentParams, 'media'> & { readonly media?: StoredMedia };

/**
 * Where the fleet gate keeps its places (fleet/gate.ts): one member per admitted request, each
 * with the time its place ends, every time taken from the datastore's own clock.
 */
export interface PlaceStore {
  /**
   * Drops the places that ended; admits `member` if fewer than `limit` remain, its place lasting
   * `leaseMs`. Resolves with 0 when admitted, else the ms until the earliest place ends (>= 1).
   */
  admit(member: string, limit: number, leaseMs: number): Promise<number>;
  /** The member's place now ends `windowMs` from now (its answer came; 0: it never went out). */
  settle(member: string, windowMs: number): Promise<void>;
  /**
   * The member's open place now ends `leaseMs` from now, for a send about to go after a wait (at
   * the fleet gate). False when the place had ended or is gone: the send must not go on it.
   */
  renew(member: string, leaseMs: number): Promise<boolean>;
  /**
   * A turn for a send that found every place open (their ends unknown): up to `limit` sends share
   * a turn, turns are `windowMs` apart, and a lane whose last turn has passed starts again
   * `estimateMs` from now. Resolves with the ms until the turn given (>= 1). Many sends waiting
   * for one busy lane thus come back a lane's worth at a time, not all at once and again every window.
   */
  reserve(estimateMs: number, windowMs: number, limit: number): Promise<number>;
  /**
   * Drops the ended places of every gate and lane of the queue: a lane no send uses again (a
   * recipient written to once) must not be kept. Redis expires such keys by itself.
   */
  sweep(): Promise<void>;
}

/**
 * A job's data written only while this worker still holds the job's lock: the write and the proof
 * of ownership are one atomic step in the datastore. A worker whose lock expired while it waited
 * (a datastore stalled longer than `lockDuration`) may have been overtaken by another worker that
 * took the job since; its write, and so the POST after it, must not happen.
 */
export interface OwnedWrites {
  /**
   * Replaces job `id`'s data if `token` still holds its lock: `written`; `lost` when another
   * worker holds it or the lock expired; `gone` when the job no longer exists.
   */
  write(id: string, token: string, data: object): Promise<'written' | 'lost' | 'gone'>;
}

/** What a guard needs to know of its caller. */
export interface GuardOptions {
  /** Use a Redis that can lose sends anyway, with a warning (development). */
  readonly allowUnsafeDatastore?: boolean | undefined;
  readonly logger?: Logger | undefined;
}

/**
 * Whether a write survives a failover (store/README.md, "Writes a failover drops"):
 * - `confirmed`: at least the asked number of replicas acknowledged it;
 * - `durable`: the datastore keeps what it committed (PostgreSQL): nothing to wait for;
 * - `no-replica`: Redis without a replica connected: no failover can roll it back to one;
 * - `unconfirmed`: replicas exist, and not enough acknowledged it within the time;
 * - `missing`: the primary reached now does not hold it (a failover came between the write and
 *   the check): it is, or is about to be, rolled back.
 */
export type Confirmation = 'confirmed' | 'durable' | 'no-replica' | 'unconfirmed' | 'missing';

/** How many replicas must acknowledge a write, and how long to wait for them (ms). */
export interface ReplicaWait {
  readonly replicas: number;
  readonly timeout: number;
}

/** What a failover can roll back: confirming writes on replicas, and finding the enqueues it rolled back. */
export interface Replication {
  /**
   * Whether job `id` as stored now (its data holding each `marks` field with that value, when
   * given) reached `wait.replicas` replicas within `wait.timeout` ms. A Redis without a replica
   * (as read at most a second ago) answers `no-replica` at once, and pays nothing more.
   */
  confirm(
    id: string,
    marks: Readonly<Record<string, string | number>> | undefined,
    wait: ReplicaWait,
  ): Promise<Confirmation>;
  /**
   * Ids this process just enqueued: kept (only ids, bounded) until the replicas are known to hold
   * them; a failover meanwhile has the ones it rolled back reported to every guard of the store.
   */
  enqueued(ids: readonly string[]): void;
  /** Stops its timer and closes its own connection. */
  close(): Promise<void>;
}

/** One queue's datastore, beside BullMQ's own data. */
export interface Store {
  readonly kind: Backend['kind'];
  /** The fleet gate's places of the queue, or with `lane`, that lane's (`s:<sender>`, `r:<recipient>`). */
  places(lane?: string): PlaceStore;
  /** The queue's update log. */
  updates(): UpdateLog;
  /**
   * A new guard of the queue's datastore (each holds its own view of the queue's marker, and hears
   * of the enqueues a failover rolled back). `close()` it when done.
   */
  guard(options: GuardOptions): DatastoreGuard;
  /** Writes of a job's data under its lock (BullMQ's lock token, checked in the same step). */
  ownedWrites(): OwnedWrites;
  /** The store's one `Replication` (made at first use). */
  replication(options: GuardOptions): Replication;
}
