import { APIError } from '../api-error.js';
import { APIConnectionError, DeliveryTimeoutError } from '../errors.js';
import { sleep as realSleep } from '../internal/sleep.js';
import type { MessageLog } from '../types/message-log.js';

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

/** How one poll reads the log: the poller gives each read a deadline and a signal. */
export type ReadLog = (options: { signal: AbortSignal | undefined; timeout: number }) => Promise<MessageLog>;

/** `WaitForDeliveryOptions` with the defaults applied. */
export interface PollSettings {
  readonly interval: number;
  readonly timeout: number;
  readonly until: 'delivered' | 'read';
  readonly signal?: AbortSignal | undefined;
  readonly onUpdate?: ((log: MessageLog) => void) | undefined;
}

/** Time, injectable so the poller's tests need no real waiting. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: Clock = { now: () => Date.now(), sleep: realSleep };

/** Failures worth another poll: the service or the network may recover before the deadline. */
function isTransient(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  if (error instanceof APIError) return error.status === 408 || error.status === 429 || error.status >= 500;
  return false;
}

function reached(status: string, until: 'delivered' | 'read'): boolean {
  return status === 'read' || (until === 'delivered' && status === 'delivered');
}

/**
 * Polls a message log until its `delivery_status` reaches `until`, the deadline passes, or the
 * signal aborts. `unknown` (and any status the SDK does not know) keeps the poll going: the
 * value is read at request time and may still change; if it never does, the timeout error
 * carries the last log so the caller can see it.
 */
export async function pollDelivery(
  id: number,
  readLog: ReadLog,
  options: PollSettings,
  requestTimeout: number,
  clock: Clock = realClock,
): Promise<MessageLog> {
  const { interval, timeout, until, signal, onUpdate } = options;
  const deadline = clock.now() + timeout;
  let last: MessageLog | undefined;
  let lastError: unknown;
  for (;;) {
    signal?.throwIfAborted();
    let wait = interval;
    try {
      const remaining = deadline - clock.now();
      const log = await readLog({ signal, timeout: Math.max(1, Math.min(requestTimeout, remaining)) });
      if (log.delivery_status !== last?.delivery_status) onUpdate?.(log);
      last = log;
      if (reached(log.delivery_status, until)) return log;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!isTransient(error)) throw error;
      lastError = error;
      if (error instanceof APIError && error.retryAfter !== undefined) wait = Math.max(wait, error.retryAfter);
    }
    const remaining = deadline - clock.now();
    if (remaining <= 0 || wait >= remaining) {
      // Sleeping past the deadline would only delay the same answer: fail now.
      if (wait >= remaining && remaining > 0) await clock.sleep(remaining, signal);
      throw new DeliveryTimeoutError(id, timeout, until, last, lastError);
    }
    await clock.sleep(wait, signal);
  }
}
