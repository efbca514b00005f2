import { APIError } from '../api-error.js';
import { APIConnectionError, DeliveryTimeoutError } from '../errors.js';
import type { PollSettings } from '../internal/poll-options.js';
import type { MessageLog } from '../types/message-log.js';
import type { PollScheduler } from './poll-scheduler.js';

/** How one poll reads the log: the poller gives each read a deadline and a signal. */
export type ReadLog = (options: { signal: AbortSignal | undefined; timeout: number }) => Promise<MessageLog>;

/** Failures worth another poll: the service or the network may recover before the deadline. */
function isTransient(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  if (error instanceof APIError) return error.status === 408 || error.status === 429 || error.status >= 500;
  return false;
}

function reached(status: string, until: 'delivered' | 'read'): boolean {
  return status === 'read' || (until === 'delivered' && status === 'delivered');
}

/** How much slower each poll that sees no change comes, up to `MAX_BACKOFF` times `interval`. */
const BACKOFF = 1.5;
const MAX_BACKOFF = 8;
/** Up to this fraction is added to each wait, so waits started together spread out. */
const JITTER = 0.2;

/**
 * The wait before the next poll: `interval` at least, growing while nothing changes (a message
 * read hours later should not cost a poll every two seconds), plus jitter.
 */
export function nextPollDelay(interval: number, unchangedPolls: number, random: () => number): number {
  const backoff = Math.min(BACKOFF ** unchangedPolls, MAX_BACKOFF);
  return interval * backoff * (1 + JITTER * random());
}

/**
 * Polls a message log until its `delivery_status` reaches `until`, the deadline passes, or the
 * signal aborts. Every poll takes a slot from the client's shared scheduler, which bounds the
 * request rate across all waits. `unknown` (and any status the SDK does not know) keeps the poll
 * going: the value is read at request time and may still change; if it never does, the timeout
 * error carries the last log so the caller can see it.
 */
export async function pollDelivery(
  id: number,
  readLog: ReadLog,
  options: PollSettings,
  requestTimeout: number,
  scheduler: PollScheduler,
  random: () => number = Math.random,
): Promise<MessageLog> {
  const { interval, timeout, until, signal, onUpdate } = options;
  const deadline = scheduler.now() + timeout;
  let last: MessageLog | undefined;
  let lastError: unknown;
  let delay = 0;
  let unchanged = 0;
  const timedOut = () => new DeliveryTimeoutError(id, timeout, until, last, lastError);
  for (;;) {
    const release = await scheduler.acquire(delay, signal, deadline);
    if (!release) throw timedOut();
    let floor = interval;
    try {
      const remaining = deadline - scheduler.now();
      const log = await readLog({ signal, timeout: Math.max(1, Math.min(requestTimeout, remaining)) });
      if (log.delivery_status !== last?.delivery_status) {
        unchanged = 0;
        onUpdate?.(log);
      } else unchanged++;
      last = log;
      if (reached(log.delivery_status, until)) return log;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!isTransient(error)) throw error;
      lastError = error;
      unchanged++;
      if (error instanceof APIError && error.retryAfter !== undefined) floor = Math.max(floor, error.retryAfter);
    } finally {
      release();
    }
    delay = Math.max(floor, nextPollDelay(interval, unchanged, random));
    const remaining = deadline - scheduler.now();
    if (delay >= remaining) {
      // The next poll would start after the deadline: answer at the deadline, not before.
      if (remaining > 0) await scheduler.sleep(remaining, signal);
      throw timedOut();
    }
  }
}
