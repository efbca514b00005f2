import { MessagingError } from '../errors.js';

/**
 * Why the datastore was refused or failed:
 * - `not-durable`: Redis without an append-only file: a restart loses what it acknowledged;
 * - `evicts`: Redis whose `maxmemory-policy` is not `noeviction`: it deletes keys when full;
 * - `forgot`: the queue's marker is gone: the datastore restarted without persistence, was
 *   flushed, or evicted keys, and sends stored before may be lost;
 * - `full`: the datastore refused a write for lack of memory or disk.
 */
export type DatastoreFault = 'not-durable' | 'evicts' | 'forgot' | 'full';

/**
 * Raised when the datastore of a queue cannot keep the sends it is given, or has lost some: the
 * message names the setting or the event, and what to do. A send that throws it was not stored.
 *
 * @example
 * ```ts
 * try { await queue.send(params, { id }) } catch (error) {
 *   if (error instanceof DatastoreError && error.reason === 'forgot') await reEnqueueSince(error.since)
 * }
 * ```
 */
export class DatastoreError extends MessagingError {
  /** What went wrong (see `DatastoreFault`). */
  readonly reason: DatastoreFault;
  /**
   * For `forgot`: when this process first saw the queue's marker, so sends enqueued since then
   * may be lost (enqueue them again with the same ids: one still stored is not stored twice).
   */
  readonly since: Date | undefined;

  constructor(reason: DatastoreFault, message: string, options?: ErrorOptions & { readonly since?: Date }) {
    super(message, options);
    this.reason = reason;
    this.since = options?.since;
  }
}
