import { DeliveryTimeoutError } from '../errors.js';
import type { PollSettings } from '../internal/poll-options.js';
import type { DeliveryUpdate } from '../types/many.js';
import type { MessageLog } from '../types/message-log.js';

/** What tracking needs from the client: one wait per id, on the client's shared poll scheduler. */
export interface TrackDeps {
  /** Checks an id (a ValidationError for a bad one). */
  readonly checkId: (id: unknown) => void;
  readonly wait: (id: number, settings: PollSettings) => Promise<unknown>;
}

type Ids = Iterable<number> | AsyncIterable<number>;

/**
 * Follows many message logs at once, yielding an update whenever one's `delivery_status` changes
 * and a final one for an id that times out or cannot be tracked; ends when every id is settled.
 * `ids` is read as it grows (the ids coming out of `sendMany`, say), while updates are yielded.
 *
 * Every wait goes through the client's poll scheduler, so 10,000 ids are polled within
 * `polling.maxPerSecond` exactly as 10,000 `waitForDelivery` calls would be.
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
  const push = (update: DeliveryUpdate) => {
    queue.push(update);
    wake?.();
  };
  let active = 0;
  let reading = true;
  let sourceError: { error: unknown } | undefined;

  const follow = (id: number) => {
    try {
      deps.checkId(id);
    } catch (error) {
      push({ id, status: 'failed', error });
      return;
    }
    active++;
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
        active--;
        wake?.();
      });
  };

  const iterator =
    Symbol.asyncIterator in ids ? ids[Symbol.asyncIterator]() : (ids as Iterable<number>)[Symbol.iterator]();
  const read = (async () => {
    try {
      for (let next = await iterator.next(); !next.done && !signal.aborted; next = await iterator.next())
        follow(next.value);
    } catch (error) {
      sourceError = { error };
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
      if (sourceError) throw sourceError.error;
      settings.signal?.throwIfAborted();
      if (!reading && active === 0) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    // An early `break`, an abort or a failed source: stop every wait and stop reading ids.
    signal.removeEventListener('abort', onAbort);
    stop.abort(new Error('trackDeliveries ended'));
    if (reading) await iterator.return?.();
    await read;
  }
}
