import type { Readable } from 'node:stream';
import type { EndpointName, PathParams } from '../../endpoints.js';
import { OutcomeUnknownError } from '../../errors.js';
import { type CallOptions, checkCallOptions } from '../../internal/call-options.js';
import { describeValue } from '../../internal/describe-value.js';
import type { Log } from '../../internal/log.js';
import { toQueryString } from '../../internal/query.js';
import { fillPath, type Route, routeOf } from '../../internal/route.js';
import { sleep } from '../../internal/sleep.js';
import type { RequestTrace } from '../../types/diagnostics.js';
import type { RequestOptions, SendOptions } from '../../types/options.js';
import type { ListQuery } from '../../types/query.js';
import type { APIPromise } from '../../types/response.js';
import { channels, publishRateLimited, publishRetry, requestChannel, requestTraced } from '../channels.js';
import type { LaneKeys, Lanes, LaneTicket } from '../rate/lanes.js';
import type { RateGate } from '../rate/rate-gate.js';
import type { Transport } from '../transport/transport.js';
import { apiPromise, type CallRecord, newCallRecord } from './api-promise.js';
import { classifyFailure } from './classify.js';
import { type ApiResult, toResult } from './response.js';
import { DEFAULT_RETRY_POLICY, decideRetry } from './retry.js';
import { progressCounter } from './upload-progress.js';

export type { ApiResult } from './response.js';

let pRetry: typeof import('p-retry').default | undefined;

/** A request body the executor can (re)produce for each attempt. */
export type RequestBody =
  | { readonly kind: 'json'; readonly text: string }
  | {
      readonly kind: 'stream';
      /** Produces the body and its headers; called once per attempt. */
      readonly open: () => { stream: Readable; headers: Record<string, string> };
      /** False for one-shot sources (a caller's stream): such a body is never sent twice. */
      readonly replayable: boolean;
    };

/** What a resource gives for one call of an endpoint: its path ids, query and body. */
export type CallRequest<Name extends EndpointName> = (PathParams<Name> extends undefined
  ? { readonly params?: undefined }
  : { readonly params: PathParams<Name> }) & {
  readonly query?: ListQuery | undefined;
  readonly body?: RequestBody | undefined;
  /** A send's sender and recipient lanes (only with `rateLimit.perSender`/`perRecipient`). */
  readonly lanes?: SendLanes | undefined;
};

/** Who to tell when a send waits in a lane and when it has passed them (`sendMany`'s accounting). */
export interface LaneHooks {
  /** The send waits in a lane (its sender's or recipient's turn has not come). */
  readonly onBlocked: () => void;
  /** The send has passed its lanes (it may still wait at the key-wide gate). */
  readonly onPassed: () => void;
  /**
   * Aborts the send while, and only while, it waits in a lane (it certainly has not gone out):
   * a `sendMany` that stops does not send what its lanes still hold.
   */
  readonly signal?: AbortSignal | undefined;
}

/** The lanes a send passes, and its hooks. */
export interface SendLanes {
  readonly keys: LaneKeys;
  readonly hooks?: LaneHooks | undefined;
}

/** What any route is called with: its path ids (checked by the route), query and body. */
export interface AnyCallRequest {
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  readonly query?: ListQuery | undefined;
  readonly body?: RequestBody | undefined;
  readonly lanes?: SendLanes | undefined;
}

/**
 * One logical call as a resource describes it: what to send (or how to build it, inside the
 * call's trace: checks and file stats included), how to read the answer, and how to name a
 * failure for this endpoint.
 */
export interface CallSpec<Request, T> {
  readonly request: Request | (() => Request | Promise<Request>);
  readonly parse: (result: ApiResult) => T | Promise<T>;
  /** Maps a failure to what the caller gets (e.g. `SendOutcomeUnknownError`). */
  readonly mapError?: ((error: unknown) => unknown) | undefined;
}

/** The client's resolved settings, fixed at construction. */
export interface ExecutorConfig {
  readonly apiBase: string;
  /** The base URL's host, for traces: `acme.example.com`. */
  readonly serverAddress: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly transport: Transport;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly log: Log;
  /** The client-wide rate gate every attempt passes (shared with `withOptions` children). */
  readonly rateGate: RateGate;
  /** The per-sender and per-recipient lanes every send attempt passes first, when configured. */
  readonly lanes: Lanes | undefined;
}

/** One call, resolved: everything each attempt needs. */
interface Exchange {
  readonly route: Route;
  readonly path: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: RequestBody | undefined;
  readonly timeout: number;
  readonly signal: AbortSignal | undefined;
  readonly onUploadProgress: CallOptions['onUploadProgress'];
  readonly record: CallRecord;
  readonly maxRetries: number;
  readonly lanes: SendLanes | undefined;
}

/**
 * Runs API calls from the endpoint table: fills the row's path template, builds the URL and
 * headers, applies the per-attempt deadline, maps failures to typed errors (`classifyFailure`),
 * and retries what the retry policy allows. Resources never touch a transport directly.
 */
export class Executor {
  readonly #config: ExecutorConfig;

  /** The headers of a JSON call without per-call headers, built once: the hot path copies nothing. */
  readonly #jsonHeaders: Readonly<Record<string, string>>;

  /** The client's lanes, when `rateLimit.perSender` or `perRecipient` is set: a send then names its own. */
  readonly lanes: Lanes | undefined;

  constructor(config: ExecutorConfig) {
    this.#config = config;
    this.lanes = config.lanes;
    this.#jsonHeaders = Object.freeze({ ...config.headers, 'content-type': 'application/json' });
  }

  /**
   * Runs one logical call of the endpoint `name` of the table: builds the request, calls it (with
   * retries), reads the answer. Returns a native promise with `.withResponse()`; when someone
   * subscribes to `tenant-messaging:request`, the whole call is one trace.
   */
  run<Name extends EndpointName, T>(
    name: Name,
    spec: CallSpec<CallRequest<Name>, T>,
    options?: RequestOptions | SendOptions,
  ): APIPromise<T> {
    return this.runRoute(routeOf(name), spec as CallSpec<AnyCallRequest, T>, options);
  }

  /** `run`, for a route made on the spot (`client.request()`). */
  runRoute<T>(route: Route, spec: CallSpec<AnyCallRequest, T>, options?: RequestOptions | SendOptions): APIPromise<T> {
    const record = newCallRecord();
    const work = async (): Promise<T> => {
      try {
        const pending = typeof spec.request === 'function' ? spec.request() : spec.request;
        const request = pending instanceof Promise ? await pending : pending;
        const exchange = this.#exchange(route, request, options, record);
        // Most calls succeed at once: the first attempt runs directly, and p-retry (which owns the
        // loop and counts the whole budget) is only set up once an attempt has failed.
        let result: ApiResult;
        try {
          result = await this.#attempt(exchange, 1);
        } catch (error) {
          result = await this.#retry(exchange, error);
        }
        const value = spec.parse(result);
        // A parse that needs nothing loaded answers synchronously: no extra turn of the loop.
        return value instanceof Promise ? await value : value;
      } catch (error) {
        const failure = spec.mapError ? spec.mapError(error) : error;
        if (failure instanceof OutcomeUnknownError && channels.outcomeUnknown.hasSubscribers) {
          const { name: endpoint, method, template: urlTemplate } = route;
          channels.outcomeUnknown.publish({ endpoint, method, urlTemplate, error: failure });
        }
        throw failure;
      } finally {
        record.durationMs = performance.now() - record.startedAt;
      }
    };
    if (!requestTraced()) return apiPromise(work(), record);
    return apiPromise(this.#traced(route, record, work), record);
  }

  /** The call as one trace of `tenant-messaging:request`, in a subscriber's context if it gave one. */
  #traced<T>(route: Route, record: CallRecord, work: () => Promise<T>): Promise<T> {
    const trace: RequestTrace = {
      endpoint: route.name,
      method: route.method,
      urlTemplate: route.template,
      serverAddress: this.#config.serverAddress,
      attempts: 0,
      status: undefined,
      requestId: undefined,
    };
    const traced = async (): Promise<T> => {
      try {
        return await (trace.bindContext ? trace.bindContext(work) : work());
      } finally {
        trace.attempts = record.attempts;
        trace.status = record.status;
        trace.requestId = record.headers?.['x-request-id'];
      }
    };
    return requestChannel.tracePromise(traced, trace);
  }

  /** One call, resolved once for all its attempts. Ids, query and options are checked before any I/O. */
  #exchange(
    route: Route,
    request: AnyCallRequest,
    given: RequestOptions | SendOptions | undefined,
    record: CallRecord,
  ): Exchange {
    const path = fillPath(route, request.params);
    const options = checkCallOptions(given, request.body !== undefined);
    const config = this.#config;
    const { body } = request;
    const { signal } = options;
    return {
      route,
      path,
      url: config.apiBase + path + toQueryString(request.query),
      headers: this.#headers(body, options.headers),
      body,
      timeout: options.timeout ?? config.timeout,
      signal,
      onUploadProgress: options.onUploadProgress,
      record,
      maxRetries: options.maxRetries ?? config.maxRetries,
      lanes: config.lanes && request.lanes,
    };
  }

  /**
   * The attempts after a first one failed with `first`. p-retry owns the loop and counts the
   * budget (`maxRetries`), and is handed `first` as its own first attempt, so the budget is counted
   * in one place; for each failure it still allows, `decideRetry` says whether to retry and after
   * how long (it honours `Retry-After`, and never repeats a request that may have reached the
   * service unless repeating it is harmless).
   */
  async #retry(exchange: Exchange, first: unknown): Promise<ApiResult> {
    const config = this.#config;
    const { route, path, body, signal, maxRetries } = exchange;
    const replayable = body?.kind !== 'stream' || body.replayable;
    // Loaded on the first failed attempt, not at import: a cold start whose calls succeed never pays for it.
    pRetry ??= (await import('p-retry')).default;
    return pRetry((attempt) => (attempt === 1 ? Promise.reject(first) : this.#attempt(exchange, attempt)), {
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
  }

  /** The request's headers: the client's, the call's own (checked), and the body's content type. */
  #headers(body: RequestBody | undefined, extra: Readonly<Record<string, string>> | undefined) {
    const base = this.#config.headers;
    if (!extra) return body?.kind === 'json' ? this.#jsonHeaders : base;
    const headers: Record<string, string> = { ...base, ...extra };
    if (body?.kind === 'json') headers['content-type'] = 'application/json';
    // The key always comes from the client, whatever the per-call headers said.
    headers['x-api-key'] = base['x-api-key'] as string;
    return headers;
  }

  /** Waits for the send's lanes (sender and recipient), telling its hooks when it waits and when it is through. */
  async #passLanes(lanes: SendLanes, route: Route, signal: AbortSignal | undefined): Promise<LaneTicket> {
    const onWait = channels.rateLimited.hasSubscribers
      ? (waitMs: number, lane: 'per-sender' | 'per-recipient') => publishRateLimited(route, waitMs, lane)
      : undefined;
    const stop = lanes.hooks?.signal;
    const waiting = stop ? (signal ? AbortSignal.any([signal, stop]) : stop) : signal;
    const pending = (this.#config.lanes as Lanes).admit(lanes.keys, waiting, onWait);
    if (!(pending instanceof Promise)) return pending;
    lanes.hooks?.onBlocked();
    try {
      return await pending;
    } finally {
      lanes.hooks?.onPassed();
    }
  }

  /** One attempt: the exchange through the transport, its failure classified, its answer read. */
  async #attempt(x: Exchange, attempt: number): Promise<ApiResult> {
    const { log, transport } = this.#config;
    const { route, path, record } = x;
    // lanes, then the rate gate: wait for this attempt's turn (no await on the fast path); `timeout` starts after.
    const ticket = x.lanes && (await this.#passLanes(x.lanes, route, x.signal));
    const { rateGate } = this.#config;
    const turn = rateGate.admit(x.signal, route);
    if (turn) {
      try {
        await turn;
      } catch (error) {
        ticket?.release(); // never sent: its places go to the next in line
        throw error;
      }
    }
    record.attempts = attempt;
    const started = log.debug ? performance.now() : 0;
    let response: Awaited<ReturnType<Transport['send']>>;
    try {
      let body: string | Readable | undefined;
      let headers = x.headers;
      let onBodyBytes: ((bytes: number) => void) | undefined;
      if (x.body?.kind === 'json') body = x.body.text;
      else if (x.body?.kind === 'stream') {
        const opened = x.body.open();
        body = opened.stream;
        headers = { ...headers, ...opened.headers };
        if (x.onUploadProgress) onBodyBytes = progressCounter(x.onUploadProgress, opened.headers, log);
      }
      const { url, timeout, signal } = x;
      response = await transport.send({ method: route.method, url, headers, body, signal, timeout, onBodyBytes });
    } catch (error) {
      const failure = classifyFailure(error, { ...x, method: route.method, label: route.label });
      log.debug?.(`${route.method} ${path} failed`, {
        method: route.method,
        path,
        attempt,
        durationMs: Math.round(performance.now() - started),
        error: failure instanceof Error ? failure.message : describeValue(failure),
      });
      rateGate.settle(0, undefined); // rate gate: no answer
      // A request that may have arrived holds its places a window past now, as one answered does.
      ticket?.settle();
      throw failure;
    }
    ticket?.settle();
    record.status = response.status;
    record.headers = response.headers;
    rateGate.settle(response.status, response.headers); // rate gate: its headers, its 429
    log.debug?.(`${route.method} ${path} ${response.status}`, {
      method: route.method,
      path,
      status: response.status,
      attempt,
      durationMs: Math.round(performance.now() - started),
      requestId: response.headers['x-request-id'],
    });
    return toResult(route, path, response);
  }
}
