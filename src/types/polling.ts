import type { MessageLog } from './message-log.js';

/**
 * Limits of the client's shared delivery poller.
 *
 * @example
 * ```ts
 * new MessagingClient({ polling: { maxConcurrent: 8, maxPerSecond: 20 } })
 * ```
 */
export interface PollingOptions {
  /**
   * Polls in flight at once, across every `waitForDelivery` of the client.
   * @default 16
   */
  maxConcurrent?: number | undefined;
  /**
   * Polls started per second, across every `waitForDelivery` of the client.
   * @default 100
   */
  maxPerSecond?: number | undefined;
}

/**
 * Options of `waitForDelivery`.
 *
 * @example
 * ```ts
 * const log = await client.waitForDelivery(sent.id, { interval: 1_000, timeout: 60_000, until: 'read' })
 * ```
 */
export interface WaitForDeliveryOptions {
  /**
   * Milliseconds between two reads of the log (spec section 8: pollers must wait between polls).
   * @default 2000
   */
  interval?: number | undefined;
  /**
   * Milliseconds the whole wait may take; then it rejects with `DeliveryTimeoutError`.
   * @default 120000
   */
  timeout?: number | undefined;
  /**
   * `delivered` resolves on `delivered` or `read` (read implies delivered); `read` waits for `read`.
   * @default 'delivered'
   */
  until?: 'delivered' | 'read' | undefined;
  /**
   * Cancels the wait at once; it rejects with the signal's reason.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /**
   * Called with the log each time its `delivery_status` changes, the first read included.
   * @default undefined
   */
  onUpdate?: ((log: MessageLog) => void) | undefined;
}
