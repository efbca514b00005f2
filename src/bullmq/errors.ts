import { MessagingError } from '../index.js';

/**
 * Why the datastore was refused or failed:
 * - `not-durable`: Redis without an append-only file: a restart loses what it acknowledged;
 * - `evicts`: Redis whose `maxmemory-policy` is not `noeviction`: it deletes keys when full;
 * - `forgot`: the queue's marker is gone: the datastore restarted without persistence, was
 *   flushed, or evicted keys, and sends stored before may be lost;
 * - `full`: the datastore refused a write for lack of memory or disk;
 * - `rolled-back`: a failover (Redis behind Sentinel: a replica promoted before it had received
 *   the last writes) rolled back sends this process had enqueued: `ids` names them, and they are
 *   gone. Enqueue them again with the same ids (one still stored is not stored twice);
 * - `not-replicated`: `waitForReplicas` was asked and no replica confirmed the enqueue in time.
 *   Unlike every other reason, the send IS stored (on the primary): `ids` names it. Do not enqueue
 *   it under a new id; the same id again is safe (it is not stored twice).
 */
export type DatastoreFault = 'not-durable' | 'evicts' | 'forgot' | 'full' | 'rolled-back' | 'not-replicated';

/** A `DatastoreError`'s code: its reason, as the codes write it (`datastore.rolled_back`). */
type DatastoreCode = `datastore.${'not_durable' | 'evicts' | 'forgot' | 'full' | 'rolled_back' | 'not_replicated'}`;

/**
 * Raised when the datastore of a queue cannot keep the sends it is given, or has lost some: the
 * message names the setting or the event, and what to do; `code` is the reason, e.g.
 * `datastore.rolled_back` for `rolled-back`. A send that throws it was not stored,
 * except with reason `not-replicated` (stored on the primary, not yet confirmed on a replica).
 *
 * @example
 * ```ts
 * try { await queue.send(params, { id }) } catch (error) {
 *   if (error instanceof DatastoreError && error.reason === 'forgot') await reEnqueueSince(error.since)
 *   if (error instanceof DatastoreError && error.reason === 'rolled-back') await reEnqueue(error.ids)
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
  /**
   * For `rolled-back`: the ids of the sends a failover rolled back (enqueue them again with the
   * same ids). For `not-replicated`: the ids stored on the primary but not yet confirmed on a
   * replica (the same ids again are safe). Empty for the other reasons.
   * @default []
   * @example `for (const id of error.ids) await queue.send(paramsOf(id), { id })`
   */
  readonly ids: readonly string[];

  constructor(
    reason: DatastoreFault,
    message: string,
    options?: ErrorOptions & { readonly since?: Date; readonly ids?: readonly string[] },
  ) {
    super(message, { cause: options?.cause, code: `datastore.${reason.replace('-', '_')}` as DatastoreCode });
    this.reason = reason;
    this.since = options?.since;
    this.ids = Object.freeze([...(options?.ids ?? [])]);
  }
}

/** Ids a message names: the first 20, then how many more (every one of them is in the error's `ids`). */
export const NAMED_IDS = 20;

/** The first `NAMED_IDS` of `ids` for a message, then `and N more` and `moreNote`. */
export function namedIds(ids: readonly string[], moreNote = ''): string {
  const named = ids.slice(0, NAMED_IDS).join(', ');
  return ids.length > NAMED_IDS ? `${named} and ${ids.length - NAMED_IDS} more${moreNote}` : named;
}
