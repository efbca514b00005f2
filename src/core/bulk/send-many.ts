import { MessagingError, SendOutcomeUnknownError } from '../../errors.js';
import type { SendManySettings } from '../../internal/options/many-options.js';
import { describeValue } from '../../internal/values/describe-value.js';
import { untilAborted } from '../../internal/waiting/abortable.js';
import type { ReconcileResult, SendResult } from '../../types/many.js';
import type { MessageLog } from '../../types/message-log.js';
import type { SendMessageParams, SentParams } from '../../types/send.js';
import type { LaneHooks } from '../call/call-spec.js';

/** What `sendMany` needs from the client. */
export interface SendManyDeps {
  /** Sends one item; with `paced`, `hooks` are told when it waits in a lane and when it has passed. */
  readonly send: (params: SendMessageParams, hooks: LaneHooks | undefined) => Promise<MessageLog>;
  /** Whether sends wait in per-sender or per-recipient lanes (the client's `rateLimit`). */
  readonly paced?: boolean | undefined;
  /** Undefined when reconciling is off. `claimed`: log ids other results of this batch own. */
  readonly reconcile:
    | ((params: SentParams, since: Date, claimed: ReadonlySet<number>) => Promise<ReconcileResult>)
    | undefined;
}

type Source = Iterable<SendMessageParams> | AsyncIterable<SendMessageParams>;

/**
 * How long a log id stays claimed by this batch. A later reconciliation looks only at logs sent
 * after its own send started (minus the clock skew allowance), so an id claimed before that can no
 * longer be mistaken for another item's log: forgetting it keeps a long campaign in flat memory.
 */
const CLAIM_MS = 15 * 60_000;

/**
 * Sends that may wait in their lanes at once, besides the `concurrency` past them: enough that a
 * run of sends to one busy recipient never holds back the rest, bounded so that a source is never
 * read far ahead of what is being sent.
 */
export const MAX_LANE_WAITING = 10_000;

/**
 * Sends every item of `source`, `concurrency` at a time, yielding each result as it completes.
 *
 * Why a generator that only works when pulled: the source is read, and a send started, only when
 * a slot is free and the caller asks for the next result, so a slow consumer stops the sending
 * (backpressure) and a 1,000,000-row cursor is read one row at a time. Nothing is sent twice:
 * `send` never retries a send that may have arrived, and an unknown outcome is reconciled against
 * the logs (never sent again) before its result is yielded. A log already reported for another
 * item of the batch is never taken for this one (two identical rows, one stored, one lost).
 *
 * When the source throws, or the signal aborts, reading stops; the sends in flight end and their
 * results are yielded; then the iteration rejects with the source's error or the signal's reason.
 */
export async function* sendMany(
  source: Source,
  settings: SendManySettings,
  deps: SendManyDeps,
): AsyncGenerator<SendResult> {
  const { concurrency, signal, stopOnError } = settings;
  const iterator =
    Symbol.asyncIterator in source
      ? source[Symbol.asyncIterator]()
      : (source as Iterable<SendMessageParams>)[Symbol.iterator]();
  const inFlight = new Map<number, Promise<void>>();
  const claimed = new Map<number, number>(); // log id -> when it was claimed
  const claim = (id: number) => {
    const now = Date.now();
    claimed.set(id, now);
    for (const [old, at] of claimed) {
      if (at >= now - CLAIM_MS) break; // insertion order: the rest is newer
      claimed.delete(old);
    }
  };
  const reconcile = deps.reconcile;
  // With lanes, a send waiting for its sender's or recipient's turn takes no `concurrency` slot:
  // the others go ahead (no head-of-line blocking), up to MAX_LANE_WAITING waiting at once. A send
  // counts as waiting only while it waits in a lane (not while the schemas load, say), so the
  // source is never read further ahead than the lanes hold sends back.
  let laneWaiting = 0;
  // Once the batch stops (abort, stopOnError, break), what its lanes still hold is not sent.
  const laneStop = deps.paced ? new AbortController() : undefined;
  const stopLanes = () =>
    laneStop?.abort(
      new MessagingError(
        'Not sent: the batch stopped (its signal, stopOnError, or a break) while this send waited for its sender or recipient lane.',
        { code: 'send.stopped' },
      ),
    );
  const send = deps.paced
    ? (params: SendMessageParams) => {
        let waiting = false;
        const hooks: LaneHooks = {
          signal: laneStop?.signal,
          onBlocked: () => {
            if (waiting) return;
            waiting = true;
            laneWaiting++;
            notify();
          },
          onPassed: () => {
            if (!waiting) return;
            waiting = false;
            laneWaiting--;
            notify();
          },
        };
        return deps.send(params, hooks).finally(hooks.onPassed);
      }
    : (params: SendMessageParams) => deps.send(params, undefined);
  const slotFree = () => inFlight.size - laneWaiting < concurrency && laneWaiting < MAX_LANE_WAITING;
  const itemDeps = {
    send,
    reconcile: reconcile && ((params: SentParams, since: Date) => reconcile(params, since, new Set(claimed.keys()))),
  };
  type Pulled = { readonly item: SendMessageParams } | { readonly done: true } | { readonly error: unknown };
  // The source is read while sends are in flight, and whichever comes first is handled: a result
  // is yielded even while the source is slow (or stuck), so that the caller can always stop.
  // Completions land in a queue and wake the loop once: no promise is raced again and again (at
  // high concurrency, racing every in-flight send on each turn piles reactions onto each of them).
  const done: SendResult[] = [];
  let pulled: Pulled | undefined;
  let pulling = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const pull = () => {
    pulling = true;
    untilAborted(Promise.resolve(iterator.next()), signal)
      .then(
        (next) => {
          pulled = next.done ? { done: true } : { item: next.value };
        },
        (error: unknown) => {
          pulled = { error };
        },
      )
      .finally(() => {
        pulling = false;
        notify();
      });
  };
  let index = 0;
  let reading = true;
  let failure: { error: unknown } | undefined;
  const halted = () => signal?.aborted === true || (stopOnError && failure !== undefined);
  try {
    for (;;) {
      if (halted()) {
        reading = false;
        stopLanes();
      }
      if (pulled !== undefined) {
        const item = pulled;
        pulled = undefined;
        if ('item' in item) {
          // An item that arrives once the batch is halted is never sent.
          if (reading) {
            const key = index++;
            inFlight.set(
              key,
              sendOne(key, item.item, itemDeps).then((result) => {
                inFlight.delete(key);
                done.push(result);
                notify();
              }),
            );
          }
        } else {
          reading = false;
          if ('error' in item && !signal?.aborted) failure = { error: item.error };
        }
        continue;
      }
      const result = done.shift();
      if (result !== undefined) {
        if (result.status === 'sent') claim(result.log.id);
        else if (stopOnError) failure ??= { error: undefined };
        yield result;
        continue;
      }
      if (reading && !pulling && slotFree()) {
        pull();
        continue;
      }
      // Nothing left to send or read (a pull still pending once halted is abandoned).
      if (inFlight.size === 0 && (!reading || !pulling)) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    if (failure?.error !== undefined) throw failure.error;
    signal?.throwIfAborted();
  } finally {
    // An early `break` (or an abort, or a failed source): stop reading the source without waiting
    // on it (its pending `next()` may never settle), and let the sends in flight end (each within
    // its deadline), so that nothing is left running behind the caller.
    if (reading) Promise.resolve(iterator.return?.()).catch(() => undefined);
    if (inFlight.size > 0) stopLanes();
    await Promise.allSettled(inFlight.values());
  }
}

/** One item: `send` checks it as it checks any call; every failure becomes a result, never a throw. */
async function sendOne(
  index: number,
  params: SendMessageParams,
  deps: {
    send: (params: SendMessageParams) => Promise<MessageLog>;
    reconcile: ((params: SentParams, since: Date) => Promise<ReconcileResult>) | undefined;
  },
): Promise<SendResult> {
  try {
    return { index, params, status: 'sent', log: await deps.send(params), reconciled: false };
  } catch (error) {
    if (error instanceof SendOutcomeUnknownError) {
      const found = await reconcileUnknown(error, deps.reconcile);
      if (found) return { index, params, status: 'sent', log: found, reconciled: true };
      return { index, params, status: 'unknown', error };
    }
    return { index, params, status: 'failed', error: asError(error) };
  }
}

async function reconcileUnknown(
  error: SendOutcomeUnknownError,
  reconcile: ((params: SentParams, since: Date) => Promise<ReconcileResult>) | undefined,
): Promise<MessageLog | undefined> {
  if (!reconcile || !error.params) return undefined;
  try {
    const outcome = await reconcile(error.params, error.startedAt);
    return outcome.status === 'found' ? outcome.log : undefined;
  } catch {
    // The search failed (the network again): the outcome stays unknown, which is what it is.
    return undefined;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new MessagingError(`send failed: ${describeValue(error)}`);
}
