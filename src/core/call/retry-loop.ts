import { sleep } from '../../internal/sleep.js';
import { publishRetry } from '../channels.js';
import { attempt } from './attempt.js';
import type { Exchange, ExecutorConfig } from './exchange.js';
import type { ApiResult } from './response.js';
import { DEFAULT_RETRY_POLICY, decideRetry } from './retry.js';

/**
 * The attempts after a first one failed with `first`, while the budget (`maxRetries`) lasts:
 * `decideRetry` says whether to retry and after how long (it honours `Retry-After`, and never
 * repeats a request that may have reached the service unless repeating it is harmless).
 *
 * Why a loop of our own, with nothing loaded on the first failure: a module loaded then is real
 * I/O between an answer and its retry, which a test's fake timers do not wait for (the retry moved
 * with the load), and an ES-module-only dependency fails to load under jest's CommonJS runtime.
 */
export async function retryAfterFirst(config: ExecutorConfig, exchange: Exchange, first: unknown): Promise<ApiResult> {
  const { route, path, body, signal, maxRetries } = exchange;
  const replayable = body?.kind !== 'stream' || body.replayable;
  let error = first;
  for (let failed = 1; ; failed++) {
    signal?.throwIfAborted();
    if (failed > maxRetries) throw error;
    const decision = decideRetry(
      { error, attempt: failed, idempotent: route.idempotent, replayable },
      DEFAULT_RETRY_POLICY,
      Math.random,
    );
    if (!decision.retry) throw error;
    config.log.info?.(`retrying ${route.method} ${path} in ${decision.delayMs} ms: ${decision.reason}`, {
      attempt: failed,
      delayMs: decision.delayMs,
    });
    // rate gate: a 429 it paused on is waited for at the gate (every request with it), not here too.
    const heldByGate = config.rateGate.absorbs(error);
    publishRetry(route, failed, decision.delayMs, decision.reason, error, heldByGate);
    if (!heldByGate) await sleep(decision.delayMs, signal);
    try {
      return await attempt(config, exchange, failed + 1);
    } catch (next) {
      error = next;
    }
  }
}
