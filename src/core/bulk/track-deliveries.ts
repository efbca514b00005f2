import { DeliveryTimeoutError } from '../../errors.js';
import type { PollSettings } from '../../internal/options/poll-options.js';
import { untilAborted } from '../../internal/waiting/abortable.js';
import { wholeTurn } from '../../internal/waiting/whole-turn.js';
import type { DeliveryUpdate } from '../../types/many.js';
import type { MessageLog } from '../../types/message-log.js';

/** What tracking needs from the client: one wait per id, on the client's shared poll scheduler. */
export interface TrackDeps {
  /** Checks an id (a ValidationError for a bad one). */
  readonly checkId: (id: unknown) => void;
  readonly wait: (id: number, settings: PollSettings) => Promise<unknown>;
}

type Ids = Iterable<number> | AsyncIterable<number>;

/** The reader gives the event loop a whole turn (timers included) after this many ids. */
const YIELD_EVERY = 256;
/** Ids followed at once at most; the reader waits for some to settle before reading more. */
const MAX_FOLLOWED = 100_000;

/**
 * Follows many message logs at once, yielding an update whenever one's `delivery_status` changes
 * and a final one for an id that times out or cannot be tracked; ends when every id is settled.
 * `ids` is read as it grows (the ids coming out of `sendMany`, say), while updates are yielded.
 * An id given twice while it is followed is followed once.
 *
 * Every wait goes through the client's poll scheduler, so 10,000 ids are polled within
 * `polling.maxPerSecond` exactly as 10,000 `waitForDelivery` calls would be. An abort or an early
 * `break` stops every wait at once (an abort rejects the iteration with the signal's reason). A
 * source that throws stops the reading only: the ids already read are followed to the end, their
 * updates yielded, and then the iteration rejects with the source's error.
 */
export async function* trackDeliveries(
  ids: Ids,
  settings: PollSettings,
  deps: TrackDeps,
): AsyncGenerator<DeliveryUpdate> {
  const stop = new AbortController();
  const signal = settings.signal ? AbortSignal.any([settings.signal, stop.signal]) : stop.signal;
  const queue: DeliveryUpdate[] = [];
  let wake: (() => void) | undefined;
  let roomForMore: (() => void) | undefined;
  const push = (update: DeliveryUpdate) => {
    queue.push(update);
    wake?.();
  };
  const following = new Set<number>();
  let reading = true;
  let sourceError: { error: unknown } | undefined;

  const follow = (id: number) => {
    try {
      deps.checkId(id);
    } catch (error) {
      push({ id, status: 'failed', error });
      return;
    }
    if (following.has(id)) return;
    following.add(id);
    let last: MessageLog | undefined;
    const onUpdate = (log: MessageLog) => {
      last = log;
      push({ id, log, status: log.delivery_status });
    };
    deps
      .wait(id, { ...settings, signal, onUpdate })
      .catch((error: unknown) => {
        if (signal.aborted) return;
        if (error instanceof DeliveryTimeoutError) push({ id, log: error.lastLog ?? last, status: 'timeout' });
        else push({ id, status: 'failed', error });
      })
      .finally(() => {
        following.delete(id);
        wake?.();
        roomForMore?.();
      });
  };

  const iterator =
    Symbol.asyncIterator in ids ? ids[Symbol.asyncIterator]() : (ids as Iterable<number>)[Symbol.iterator]();
  // Why the reader yields and pauses: a synchronous source only ever awaits microtasks, so an
  // endless (or just huge) one would hold the event loop; and every id followed holds a wait.
  void (async () => {
    try {
      for (let count = 1; !signal.aborted; count++) {
        const next = await untilAborted(Promise.resolve(iterator.next()), signal);
        if (next.done) break;
        follow(next.value);
        if (count % YIELD_EVERY === 0) await wholeTurn();
        while (following.size >= MAX_FOLLOWED && !signal.aborted) {
          await new Promise<void>((resolve) => {
            roomForMore = resolve;
          });
          roomForMore = undefined;
        }
      }
    } catch (error) {
      if (!signal.aborted) sourceError = { error };
    } finally {
      reading = false;
      wake?.();
    }
  })();

  // Aborting wakes the loop too, so that it rejects at once with the signal's reason.
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift() as DeliveryUpdate;
      settings.signal?.throwIfAborted();
      // A source that threw stops the reading, not the waits: the ids it gave are the caller's,
      // and their updates come first, then its error.
      if (!reading && following.size === 0) {
        if (sourceError) throw sourceError.error;
        return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    // The end, an early `break` or an abort: stop every wait and stop reading ids, without
    // waiting on the source (its pending `next()` may never settle).
    signal.removeEventListener('abort', onAbort);
    stop.abort(new Error('trackDeliveries ended'));
    roomForMore?.();
    if (reading) Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}
