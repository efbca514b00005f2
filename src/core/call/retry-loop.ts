import pRetry from 'p-retry';
import { APITimeoutError } from '../../errors.js';
import { monotonicNow } from '../../internal/waiting/clock.js';
import { sleep } from '../../internal/waiting/sleep.js';
import { publishRetry } from '../channels.js';
import { attempt } from './attempt.js';
import type { Exchange, ExecutorConfig } from './exchange.js';
import type { ApiResult } from './response.js';
import { DEFAULT_RETRY_POLICY, decideRetry } from './retry.js';

/**
 * The attempts after a first one failed with `first`. p-retry owns the loop and counts the
 * budget (`maxRetries`), and is handed `first` as its own first attempt, so the budget is counted
 * in one place; for each failure it still allows, `decideRetry` says whether to retry and after
 * how long (it honours `Retry-After`, and never repeats a request that may have reached the
 * service unless repeating it is harmless).
 *
 * p-retry is bundled into the build and imported with it, not loaded on the first failure: a
 * module loaded then is real I/O between an answer and its retry, which a test's fake timers do
 * not wait for, and jest's CommonJS runtime cannot load an ES-module-only package.
 */
export async function retryAfterFirst(config: ExecutorConfig, exchange: Exchange, first: unknown): Promise<ApiResult> {
  const { route, path, body, signal, maxRetries } = exchange;
  const replayable = body?.kind !== 'stream' || body.replayable;
  const attempts = pRetry((n) => (n === 1 ? Promise.reject(first) : attempt(config, exchange, n)), {
    retries: maxRetries,
    // The delay comes from the policy (it honours Retry-After) and is slept in shouldRetry.
    minTimeout: 0,
    ...(signal ? { signal } : {}),
    shouldRetry: async ({ error, attemptNumber }) => {
      const failed = { error, attempt: attemptNumber, idempotent: route.idempotent, replayable };
      const decision = decideRetry(failed, DEFAULT_RETRY_POLICY, Math.random);
      if (!decision.retry) return false;
      config.log.info?.(`retrying ${route.method} ${path} in ${decision.delayMs} ms: ${decision.reason}`, {
        attempt: attemptNumber,
        delayMs: decision.delayMs,
      });
      // rate gate: a 429 it paused on is waited for at the gate (every request with it), not here too.
      const heldByGate = config.rateGate.absorbs(error);
      publishRetry(route, attemptNumber, decision.delayMs, decision.reason, error, heldByGate);
      if (!heldByGate) await sleep(decision.delayMs, signal);
      return true;
    },
  });
  return attempts.catch((error: unknown) => Promise.reject(measured(error, exchange)));
}

/**
 * A timeout after retries, as it was: how many attempts and how long in all (measured), not the
 * last attempt's deadline alone, which would name 500 ms after three attempts took nearly 3 s.
 */
function measured(error: unknown, exchange: Exchange): unknown {
  const { attempts, startedAt } = exchange.record;
  if (!(error instanceof APITimeoutError) || attempts <= 1) return error;
  return new APITimeoutError(error.timeoutMs, {
    cause: error.cause,
    neverSent: error.neverSent,
    attempts,
    elapsedMs: monotonicNow() - startedAt,
  });
}
