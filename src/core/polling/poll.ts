import { APIError } from '../../api-error.js';
import { APIConnectionError, DeliveryTimeoutError } from '../../errors.js';
import type { PollSettings } from '../../internal/options/poll-options.js';
import type { MessageLog } from '../../types/message-log.js';
import type { WithResponse } from '../../types/response.js';
import { channels } from '../channels.js';
import type { PollScheduler } from './poll-scheduler.js';

/** How one poll reads the log (with its answer): the poller gives each read a deadline and a signal. */
export type ReadLog = (options: {
  signal: AbortSignal | undefined;
  timeout: number;
}) => Promise<WithResponse<MessageLog>>;

/** Failures worth another poll: the service or the network may recover before the deadline. */
function isTransient(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  if (error instanceof APIError) return error.status === 408 || error.status === 429 || error.status >= 500;
  return false;
}

function reached(status: string, until: 'delivered' | 'read'): boolean {
  return status === 'read' || (until === 'delivered' && status === 'delivered');
}

/** What a callback threw, as text; whatever it threw (even an object that cannot become a string). */
function describeThrown(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return 'a value that cannot be shown as text';
  }
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

/** What `pollDelivery` needs from its client. */
export interface PollContext {
  /** The client's request timeout: a poll's read gets the smaller of it and the time left. */
  readonly requestTimeout: number;
  /** The client's shared scheduler: it bounds the poll rate across waits and answers each deadline. */
  readonly scheduler: PollScheduler;
  /** The client's `warn` log line, when that level is enabled. */
  readonly warn?: ((message: string, fields?: Record<string, unknown>) => void) | undefined;
  /** The jitter source; injectable for exact tests. */
  readonly random?: (() => number) | undefined;
}

/**
 * Polls a message log until its `delivery_status` reaches `until`, the deadline passes, or the
 * signal aborts. Every poll takes a slot from the client's shared scheduler, which bounds the
 * request rate across all waits. `unknown` (and any status the SDK does not know) keeps the poll
 * going: the value is read at request time and may still change; if it never does, the timeout
 * error carries the last log so the caller can see it.
 *
 * The deadline holds whatever other waits do: a poll still queued for a slot at the deadline is
 * answered then by the scheduler, and a read in flight gets no more than the time left.
 */
export async function pollDelivery(
  id: number,
  readLog: ReadLog,
  options: PollSettings,
  context: PollContext,
): Promise<WithResponse<MessageLog>> {
  const { interval, timeout, until, signal, onUpdate } = options;
  const { requestTimeout, scheduler, warn, random = Math.random } = context;
  const deadline = scheduler.now() + timeout;
  let last: MessageLog | undefined;
  let lastError: unknown;
  let delay = 0;
  let unchanged = 0;
  let warned = false;
  let polls = 0;
  // A throwing onUpdate is a bug in the caller's observer: it must not change what the wait
  // answers (the upload's onUploadProgress is treated the same way), so it is logged once and the
  // wait goes on.
  const notify = (log: MessageLog) => {
    try {
      onUpdate?.(log);
    } catch (error) {
      if (!warned) warn?.('onUpdate threw; the wait goes on', { messageLogId: id, error: describeThrown(error) });
      warned = true;
    }
  };
  const timedOut = () => new DeliveryTimeoutError(id, timeout, until, last, lastError);
  for (;;) {
    const release = await scheduler.acquire(delay, signal, deadline);
    if (!release) throw timedOut();
    let floor = interval;
    try {
      const remaining = deadline - scheduler.now();
      // Never past the wait's own deadline: the transport ends the read when this timeout passes.
      polls++;
      const read = await readLog({ signal, timeout: Math.max(1, Math.min(requestTimeout, remaining)) });
      const log = read.data;
      if (channels.poll.hasSubscribers) {
        channels.poll.publish({ messageLogId: id, poll: polls, deliveryStatus: log.delivery_status, error: undefined });
      }
      if (log.delivery_status !== last?.delivery_status) {
        unchanged = 0;
        notify(log);
      } else unchanged++;
      last = log;
      if (reached(log.delivery_status, until)) return read;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (channels.poll.hasSubscribers) {
        channels.poll.publish({ messageLogId: id, poll: polls, deliveryStatus: undefined, error });
      }
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
