import type { Readable } from 'node:stream';
import pRetry from 'p-retry';
import type { EndpointName, PathParams } from '../endpoints.js';
import { type CallOptions, checkCallOptions } from '../internal/call-options.js';
import { describeValue } from '../internal/describe-value.js';
import type { Log } from '../internal/log.js';
import { toQueryString } from '../internal/query.js';
import { fillPath, type Route, routeOf } from '../internal/route.js';
import { sleep } from '../internal/sleep.js';
import type { RequestOptions, SendOptions, UploadProgress } from '../types/options.js';
import type { ListQuery } from '../types/query.js';
import { classifyFailure } from './classify.js';
import { type ApiResult, toResult } from './response.js';
import { DEFAULT_RETRY_POLICY, decideRetry } from './retry.js';
import type { Transport } from './transport.js';

export type { ApiResult } from './response.js';

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
};

/** The client's resolved settings, fixed at construction. */
export interface ExecutorConfig {
  readonly apiBase: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly transport: Transport;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly log: Log;
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

  constructor(config: ExecutorConfig) {
    this.#config = config;
    this.#jsonHeaders = Object.freeze({ ...config.headers, 'content-type': 'application/json' });
  }

  /**
   * Calls the endpoint `name` of the table. Ids, query and options are checked before any I/O.
   *
   * Retries: p-retry owns the loop and counts the budget (`maxRetries`); for each failure it
   * still allows, `decideRetry` says whether to retry and after how long (it honours
   * `Retry-After`, and never repeats a send that may have reached the service).
   */
  async call<Name extends EndpointName>(
    name: Name,
    request: CallRequest<Name>,
    given?: RequestOptions | SendOptions,
  ): Promise<ApiResult> {
    const route = routeOf(name);
    const path = fillPath(route, request.params);
    const options = checkCallOptions(given, request.body !== undefined);
    const config = this.#config;
    const { body } = request;
    const { signal } = options;
    const exchange: Exchange = {
      route,
      path,
      url: config.apiBase + path + toQueryString(request.query),
      headers: this.#headers(body, options.headers),
      body,
      timeout: options.timeout ?? config.timeout,
      signal,
      onUploadProgress: options.onUploadProgress,
    };
    const replayable = body?.kind !== 'stream' || body.replayable;
    return pRetry((attempt) => this.#attempt(exchange, attempt), {
      retries: options.maxRetries ?? config.maxRetries,
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
        await sleep(decision.delayMs, signal);
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

  /** One attempt: the exchange through the transport, its failure classified, its answer read. */
  async #attempt(x: Exchange, attempt: number): Promise<ApiResult> {
    const { log, transport } = this.#config;
    const { route, path } = x;
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
      throw failure;
    }
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

/** Turns byte counts into `{ loaded, total }` reports; a throwing callback is logged, never fatal to the upload. */
function progressCounter(
  report: (progress: UploadProgress) => void,
  headers: Record<string, string>,
  log: Log,
): (bytes: number) => void {
  const length = headers['content-length'];
  const total = length === undefined ? undefined : Number(length);
  let loaded = 0;
  let warned = false;
  return (bytes) => {
    loaded += bytes;
    try {
      report({ loaded, total });
    } catch (error) {
      if (!warned) log.warn?.('onUploadProgress threw; the upload goes on', { error: describeValue(error) });
      warned = true;
    }
  };
}
