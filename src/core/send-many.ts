import { MessagingError, SendOutcomeUnknownError } from '../errors.js';
import { describeValue } from '../internal/describe-value.js';
import type { SendManySettings } from '../internal/many-options.js';
import type { ReconcileResult, SendResult } from '../types/many.js';
import type { MessageLog } from '../types/message-log.js';
import type { SendMessageParams, SentParams } from '../types/send.js';

/** What `sendMany` needs from the client. */
export interface SendManyDeps {
  readonly send: (params: SendMessageParams) => Promise<MessageLog>;
  /** Undefined when reconciling is off. */
  readonly reconcile: ((params: SentParams, since: Date) => Promise<ReconcileResult>) | undefined;
}

type Source = Iterable<SendMessageParams> | AsyncIterable<SendMessageParams>;

/**
 * Sends every item of `source`, `concurrency` at a time, yielding each result as it completes.
 *
 * Why a generator that only works when pulled: the source is read, and a send started, only when
 * a slot is free and the caller asks for the next result, so a slow consumer stops the sending
 * (backpressure) and a 1,000,000-row cursor is read one row at a time. Nothing is sent twice:
 * `send` never retries a send that may have arrived, and an unknown outcome is reconciled against
 * the logs (never sent again) before its result is yielded.
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
  const inFlight = new Map<number, Promise<{ key: number; result: SendResult }>>();
  let index = 0;
  let exhausted = false;
  let stopped = false;
  try {
    for (;;) {
      while (!exhausted && !stopped && !signal?.aborted && inFlight.size < concurrency) {
        const next = await iterator.next();
        if (next.done) exhausted = true;
        else {
          const key = index++;
          inFlight.set(
            key,
            sendOne(key, next.value, deps).then((result) => ({ key, result })),
          );
        }
      }
      if (inFlight.size === 0) break;
      const { key, result } = await Promise.race(inFlight.values());
      inFlight.delete(key);
      if (stopOnError && result.status !== 'sent') stopped = true;
      yield result;
    }
    signal?.throwIfAborted();
  } finally {
    // An early `break` (or an abort): stop reading the source, and let the sends in flight end
    // (they are bounded by their deadlines), so that nothing is left running behind the caller.
    if (!exhausted) await iterator.return?.();
    await Promise.allSettled(inFlight.values());
  }
}

/** One item: `send` checks it as it checks any call; every failure becomes a result, never a throw. */
async function sendOne(index: number, params: SendMessageParams, deps: SendManyDeps): Promise<SendResult> {
  try {
    return { index, params, status: 'sent', log: await deps.send(params), reconciled: false };
  } catch (error) {
    if (error instanceof SendOutcomeUnknownError) {
      const found = await reconcileUnknown(error, deps);
      if (found) return { index, params, status: 'sent', log: found, reconciled: true };
      return { index, params, status: 'unknown', error };
    }
    return { index, params, status: 'failed', error: asError(error) };
  }
}

async function reconcileUnknown(error: SendOutcomeUnknownError, deps: SendManyDeps): Promise<MessageLog | undefined> {
  if (!deps.reconcile || !error.params) return undefined;
  try {
    const outcome = await deps.reconcile(error.params, error.startedAt);
    return outcome.status === 'found' ? outcome.log : undefined;
  } catch {
    // The search failed (the network again): the outcome stays unknown, which is what it is.
    return undefined;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new MessagingError(`send failed: ${describeValue(error)}`);
}
