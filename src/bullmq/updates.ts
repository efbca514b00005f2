import type { QueueEvents, QueueEventsProducer } from 'bullmq';
import type { MessagingUpdate } from './types.js';

/**
 * Updates travel through the queue's own event log (BullMQ's `QueueEventsProducer.publishEvent`
 * and `QueueEvents`, a Redis stream read with a blocking read), not through any process's memory:
 * every worker publishes, every reader sees every update, and a reader that restarts resumes from
 * the last `eventId` it handled, as long as the log still holds it (it keeps the newest
 * `EVENTS_KEPT` events of the queue, BullMQ's own included).
 */
export const UPDATE_EVENT = 'tenant-messaging:update';

/** A mark `updates()` reads after on PostgreSQL, whose event ids hold no time (queue.ts). */
export const MARK_EVENT = 'tenant-messaging:mark';

/** How many events the queue's event log keeps (BullMQ's default for its own events). */
export const EVENTS_KEPT = 10_000;

/** An update before it has an event id and a time. */
export type Unpublished = Omit<MessagingUpdate, 'eventId' | 'at'>;

export async function publish(producer: QueueEventsProducer, update: Unpublished): Promise<void> {
  // `at` goes with the update: PostgreSQL's event ids carry no time, and a webhook's timestamp is it.
  const stamped = { ...update, at: new Date().toISOString() };
  await producer.publishEvent({ eventName: UPDATE_EVENT, update: JSON.stringify(stamped) }, EVENTS_KEPT);
}

/** The Redis stream id to start reading from: `'now'` becomes this instant in the stream's id format (ms-seq). */
export function startId(from: string | undefined, now = Date.now()): string {
  if (from === undefined || from === 'now') return `${now - 1}-0`;
  if (from === 'start') return '0';
  return from;
}

/**
 * The updates a `QueueEvents` reader sees, as an async iterable; closing the iteration (`break`,
 * `return`, the signal) closes the reader and its connection.
 */
export async function* readUpdates(
  events: QueueEvents,
  signal: AbortSignal | undefined,
): AsyncGenerator<MessagingUpdate> {
  const buffered: MessagingUpdate[] = [];
  let wake: (() => void) | undefined;
  let failure: unknown;
  const onUpdate = (args: { update?: string }, eventId: string) => {
    try {
      buffered.push({ ...(JSON.parse(args.update ?? '') as Unpublished), eventId });
    } catch {
      return; // not ours (or damaged): updates are published only by this module
    }
    wake?.();
  };
  const onError = (error: unknown) => {
    failure = error;
    wake?.();
  };
  const onAbort = () => wake?.();
  // QueueEvents' typed events do not list custom ones: this is its documented way to read them.
  const emitter = events as unknown as NodeJS.EventEmitter;
  emitter.on(UPDATE_EVENT, onUpdate);
  emitter.on('error', onError);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      while (buffered.length > 0) yield buffered.shift() as MessagingUpdate;
      if (signal?.aborted) return;
      if (failure !== undefined) throw failure;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    emitter.off(UPDATE_EVENT, onUpdate);
    emitter.off('error', onError);
    signal?.removeEventListener('abort', onAbort);
    await events.close();
  }
}
