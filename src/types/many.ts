import type { MessageLog } from './message-log.js';
import type { SendMessageParams } from './send.js';

/**
 * Options of `messages.reconcile`.
 *
 * @example
 * ```ts
 * const found = await client.messages.reconcile(error.params, { since: error.startedAt })
 * ```
 */
export interface ReconcileOptions {
  /** When the send started (`SendOutcomeUnknownError.startedAt`): logs sent before it (minus `clockSkewMs`) cannot be it. */
  since: Date;
  /**
   * Cancels the search.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /**
   * A hard cap on the pages of `GET /messages` read. Without it, the walk reads back to the
   * window's start however many pages that is, within caps it derives from the service's
   * `meta.last_page` (twice its pages: the list may shift while it is read), or 100 pages when
   * the service gives no counters. A walk stopped by a cap reports `searched.complete: false`.
   * @default undefined (the derived caps above)
   */
  maxPages?: number | undefined;
  /**
   * How far the service's clock may be behind this machine's, in ms.
   * @default 60000
   */
  clockSkewMs?: number | undefined;
}

/**
 * What `messages.reconcile` found.
 *
 * @example
 * ```ts
 * const outcome = await client.messages.reconcile(error.params, { since: error.startedAt })
 * if (outcome.status === 'found') console.log(outcome.log.id)
 * ```
 */
export type ReconcileResult =
  /** Exactly one log matches, its recipient confirmed by `request_payload.to_phone`. */
  | { readonly status: 'found'; readonly log: MessageLog }
  /**
   * No log read matches. `searched.complete`: the walk reached the window's start, so the message
   * was not stored (yet); false: a cap (`maxPages` or a derived one) stopped it first, which proves nothing.
   */
  | {
      readonly status: 'not-found';
      readonly searched: { readonly pages: number; readonly logs: number; readonly complete: boolean };
    }
  /** Several logs match, or one does without the recipient echoed: only you can tell which. */
  | { readonly status: 'ambiguous'; readonly candidates: readonly MessageLog[] };

/**
 * Options of `messages.sendMany`.
 *
 * @example
 * ```ts
 * for await (const result of client.messages.sendMany(rows, { concurrency: 8 })) console.log(result.status)
 * ```
 */
export interface SendManyOptions {
  /**
   * Sends in flight at once.
   * @default 4
   */
  concurrency?: number | undefined;
  /**
   * Stops reading the source; sends in flight end as they end and their results are yielded, then
   * the iteration rejects with the signal's reason. Results already yielded stand.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /**
   * Reconciles each unknown outcome against the message logs before yielding it.
   * @default true
   */
  reconcile?: boolean | undefined;
  /**
   * Stops reading the source after the first `failed` or `unknown` result (sends in flight end as they end).
   * @default false
   */
  stopOnError?: boolean | undefined;
}

/**
 * One result of `sendMany`, in completion order; `index` is the item's position in the source.
 *
 * @example
 * ```ts
 * for await (const result of client.messages.sendMany(rows)) {
 *   if (result.status === 'sent') console.log(result.index, result.log.id, result.reconciled)
 * }
 * ```
 */
export type SendResult =
  | {
      readonly index: number;
      readonly params: SendMessageParams;
      readonly status: 'sent';
      readonly log: MessageLog;
      /** True when the send's answer was lost and the log was found by reconciliation. */
      readonly reconciled: boolean;
    }
  | { readonly index: number; readonly params: SendMessageParams; readonly status: 'failed'; readonly error: Error }
  | {
      readonly index: number;
      readonly params: SendMessageParams;
      readonly status: 'unknown';
      /** The `SendOutcomeUnknownError`: reconcile later, or decide to send again. */
      readonly error: Error;
    };

/**
 * Options of `trackDeliveries`.
 *
 * @example
 * ```ts
 * for await (const update of client.trackDeliveries(ids, { timeout: 600_000 })) console.log(update.id, update.status)
 * ```
 */
export interface TrackDeliveriesOptions {
  /**
   * Milliseconds between two reads of one log, at least.
   * @default 2000
   */
  interval?: number | undefined;
  /**
   * Milliseconds each id may take to reach `until`; then it gets a final `timeout` update.
   * @default 120000
   */
  timeout?: number | undefined;
  /**
   * `delivered` settles an id on `delivered` or `read`; `read` waits for `read`.
   * @default 'delivered'
   */
  until?: 'delivered' | 'read' | undefined;
  /**
   * Stops every poll; the iteration then rejects with the signal's reason.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
}

/**
 * One update of `trackDeliveries`.
 *
 * @example
 * ```ts
 * for await (const update of client.trackDeliveries(ids)) {
 *   if (update.status === 'failed') console.warn(update.id, update.error)
 * }
 * ```
 */
export type DeliveryUpdate =
  /** The id's `delivery_status` changed (the first read included); `status` is the new one. */
  | { readonly id: number; readonly log: MessageLog; readonly status: string }
  /** Final: the id did not reach `until` within `timeout`; `log` is the last read, if any. */
  | { readonly id: number; readonly log: MessageLog | undefined; readonly status: 'timeout' }
  /** Final: the id cannot be tracked (a 404, a 403, ...). */
  | { readonly id: number; readonly status: 'failed'; readonly error: unknown };
