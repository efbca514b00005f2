import type { Logger } from '../../types/logger.js';
import type { Backend } from './backend.js';
import type { DatastoreGuard } from './guard.js';
import type { UpdateLog } from './update-log.js';

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
  /** The member's place now ends `windowMs` from now (its answer came). */
  settle(member: string, windowMs: number): Promise<void>;
}

/** What a guard needs to know of its caller. */
export interface GuardOptions {
  /** Use a Redis that can lose sends anyway, with a warning (development). */
  readonly allowUnsafeDatastore?: boolean | undefined;
  readonly logger?: Logger | undefined;
}

/** One queue's datastore, beside BullMQ's own data. */
export interface Store {
  readonly kind: Backend['kind'];
  /** The fleet gate's places of the queue. */
  places(): PlaceStore;
  /** The queue's update log. */
  updates(): UpdateLog;
  /** A new guard of the queue's datastore (each holds its own view of the queue's marker). */
  guard(options: GuardOptions): DatastoreGuard;
}
