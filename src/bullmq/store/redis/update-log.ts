import type { Queue, QueueEvents, RedisClient } from 'bullmq';
import type { BullMQModule } from '../../load.js';
import type { MessagingUpdate } from '../../types.js';
import { type Backend, makeProducer, makeQueueEvents } from '../backend.js';
import { EVENTS_KEPT, parsed, stamped, type UpdateLog } from '../update-log.js';
import LAST_EVENT from './last-event.lua';

/** The name updates are published under in the queue's event stream. */
export const UPDATE_EVENT = 'tenant-messaging:update';

/** Where a reader starts: after the stream's newest entry (`'now'`), `'0'` (`'start'`), or after an `eventId`. */
async function startId(from: string | undefined, newest: () => Promise<string>): Promise<string> {
  if (from === undefined || from === 'now') return newest();
  if (from === 'start') return '0';
  return from;
}

const LAST_EVENT_COMMAND = 'tenantMessagingLastEvent';

/**
 * On Redis, updates travel through the queue's own event stream (BullMQ's `publishEvent`, read by
 * `QueueEvents` with a blocking read): a stream's ids are assigned in the order entries are
 * stored, so a reader after an id misses nothing. It keeps the newest `EVENTS_KEPT` events of the
 * queue, BullMQ's own included.
 */
export function redisUpdateLog(bull: BullMQModule, backend: Backend, queue: Queue): UpdateLog {
  let producer: ReturnType<typeof makeProducer> | undefined;
  /** The readers open now: `close()` closes them, even one whose iteration is not being pulled. */
  const open = new Set<QueueEvents>();
  /** Aborted by `close()`: every iteration then ends, as a `break` would end it. */
  const closing = new AbortController();
  /** The queue's client with the last-event script defined, once, on first use. */
  let scripted: Promise<RedisClient> | undefined;
  const newest = async () => {
    scripted ??= Promise.resolve(queue.getBackend().client as Promise<RedisClient>).then((redis) => {
      redis.defineCommand(LAST_EVENT_COMMAND, { numberOfKeys: 1, lua: LAST_EVENT });
      return redis;
    });
    return String(await (await scripted).runCommand(LAST_EVENT_COMMAND, [queue.toKey('events')]));
  };
  return {
    publish: async (update) => {
      // Its connection's errors reach the publish that fails.
      producer ??= makeProducer(bull, queue.name, backend);
      await producer.publishEvent({ eventName: UPDATE_EVENT, update: stamped(update) }, EVENTS_KEPT);
    },
    position: (from) => startId(from, newest),
    read: async function* (position, signal) {
      const events = makeQueueEvents(bull, queue.name, backend, { lastEventId: position });
      open.add(events);
      try {
        yield* readEvents(events, signal ? AbortSignal.any([signal, closing.signal]) : closing.signal);
      } finally {
        open.delete(events);
      }
    },
    close: async () => {
      closing.abort();
      await Promise.all([...open].map((events) => events.close()));
      open.clear();
      await producer?.close();
    },
  };
}

/**
 * The updates a `QueueEvents` reader sees, as an async generator; closing the iteration (`break`,
 * `return`, the signal) closes the reader and its connection.
 */
async function* readEvents(events: QueueEvents, signal: AbortSignal | undefined): AsyncGenerator<MessagingUpdate> {
  const buffered: MessagingUpdate[] = [];
  let wake: (() => void) | undefined;
  let failure: unknown;
  const onUpdate = (args: { update?: string }, eventId: string) => {
    const update = parsed(args.update, eventId);
    if (!update) return; // not ours, or damaged: updates are published only by this module
    buffered.push(update);
    wake?.();
  };
  const onError = (error: unknown) => {
    // A connection that dropped (a restart, a failover) is opened again by BullMQ, which reads on
    // from the last event it had: nothing is skipped, so the iteration carries on. A datastore that
    // came back without the queue's data is the guard's to report (datastore-guard.ts).
    if (isTransient(error)) return;
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

/**
 * Errors of a connection that BullMQ (ioredis) opens again by itself, after which BullMQ's reader
 * reads on from the last event it had: a server restarting or failing over, a Sentinel set-up
 * between two primaries (ioredis asks the sentinels again), a Cluster whose slot's master is down
 * for a moment or whose slots are moving to a promoted replica (ioredis follows `MOVED`/`ASK` up
 * to its `maxRedirections`, then fails that one read with "Too many Cluster redirections"; it
 * reads the slot map again, "Failed to refresh slots cache." when no node answered for it).
 */
const TRANSIENT =
  /Connection is closed|LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|\bMOVED \d|\bASK \d|All sentinels are unreachable|Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available/;

function isTransient(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (typeof code === 'string' && ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code)) ||
    TRANSIENT.test(String(message))
  );
}
