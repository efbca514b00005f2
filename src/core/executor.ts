import type { Readable } from 'node:stream';
import pRetry from 'p-retry';
import { APIError, errorFromResponse } from '../api-error.js';
import {
  APIConnectionError,
  APITimeoutError,
  MessagingError,
  ResponseValidationError,
  ValidationError,
} from '../errors.js';
import { checkRequestOptions } from '../internal/config.js';
import type { Log } from '../internal/log.js';
import { describeNetworkError, failedBeforeConnecting, refusedByHttpClient } from '../internal/network-error.js';
import { type QueryValue, toQueryString } from '../internal/query.js';
import { sleep } from '../internal/sleep.js';
import type { RequestOptions } from '../options.js';
import { DEFAULT_RETRY_POLICY, decideRetry, type RetryDecision } from './retry.js';
import { BodyTooLargeError, DeadlineExceededError, type Transport, type TransportResponse } from './transport.js';

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

/** One API call as the resources describe it. */
export interface ApiCall {
  /** The endpoint's name for messages, e.g. `GET /messages/{messageLog}`. */
  readonly endpoint: string;
  readonly method: 'GET' | 'POST';
  /** The path below `/api/v1`, parameters filled in, e.g. `/messages/42`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>> | undefined;
  readonly body?: RequestBody | undefined;
  /** Called as the request body leaves, with the bytes sent so far and the total when known. */
  readonly onUploadProgress?: ((progress: UploadProgress) => void) | undefined;
}

/** How much of a request body has been sent. */
export interface UploadProgress {
  /** Bytes of the body written to the connection so far, in this attempt. */
  readonly loaded: number;
  /** The body's size, when known (`Content-Length`); undefined for a stream of unknown size. */
  readonly total: number | undefined;
}

/** A successful (2xx) response with its JSON body parsed. */
export interface ApiResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** The client's resolved settings, fixed at construction. */
export interface ExecutorConfig {
  readonly apiBase: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly transport: Transport;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly log: Log;
}

/** Errors of attempts that failed before a connection existed: the request never left. */
const neverSent = new WeakSet<object>();

/**
 * True when a failed request may still have been processed by the service: a connection error
 * after the connection was made (a timeout, a reset), or a status that does not say "not done"
 * (408 and 5xx may come from a proxy while the service carried on).
 */
export function mayHaveBeenProcessed(error: unknown): boolean {
  if (error instanceof APIConnectionError) return !neverSent.has(error);
  if (error instanceof APIError) return error.status === 408 || error.status >= 500;
  return false;
}

/**
 * Runs API calls: builds the URL and headers, applies the per-attempt deadline, maps failures to
 * typed errors, and retries what the retry policy allows. Resources never touch a transport directly.
 */
export class Executor {
  readonly #config: ExecutorConfig;

  /** The headers of a JSON call without per-call headers, built once: the hot path copies nothing. */
  readonly #jsonHeaders: Readonly<Record<string, string>>;

  constructor(config: ExecutorConfig) {
    this.#config = config;
    this.#jsonHeaders = Object.freeze({ ...config.headers, 'content-type': 'application/json' });
  }

  async call(call: ApiCall, options: RequestOptions = {}): Promise<ApiResult> {
    checkRequestOptions(options);
    const config = this.#config;
    const url = config.apiBase + call.path + toQueryString(call.query);
    const headers = this.#headers(call, options);
    const timeout = options.timeout ?? config.timeout;
    const maxRetries = options.maxRetries ?? config.maxRetries;
    const { signal } = options;
    const idempotent = call.method === 'GET';
    const replayable = call.body?.kind !== 'stream' || call.body.replayable;

    const attempt = (n: number) => this.#attempt(call, url, headers, timeout, signal, n);
    // The first attempt runs directly: most calls succeed, and p-retry's machinery is only worth
    // its allocations once something has failed.
    try {
      return await attempt(1);
    } catch (error) {
      const first = this.#decide(error, 1, idempotent, replayable, maxRetries);
      if (!first.retry) throw error;
      await this.#wait(first, call, 1, signal);
    }

    let decision: RetryDecision | undefined;
    return pRetry((n) => attempt(n + 1), {
      retries: maxRetries - 1,
      // Delays come from our own policy (it honours Retry-After), slept in onFailedAttempt.
      minTimeout: 0,
      maxTimeout: 0,
      ...(signal ? { signal } : {}),
      onFailedAttempt: async ({ error, attemptNumber }) => {
        decision = this.#decide(error, attemptNumber + 1, idempotent, replayable, maxRetries);
        if (decision.retry) await this.#wait(decision, call, attemptNumber + 1, signal);
      },
      shouldRetry: () => decision?.retry === true,
    });
  }

  #decide(
    error: unknown,
    attempt: number,
    idempotent: boolean,
    replayable: boolean,
    maxRetries: number,
  ): RetryDecision {
    return decideRetry(
      { error, attempt, idempotent, replayable, neverSent: neverSent.has(error as object) },
      { ...DEFAULT_RETRY_POLICY, maxRetries },
      Math.random,
    );
  }

  async #wait(
    decision: RetryDecision & { retry: true },
    call: ApiCall,
    attempt: number,
    signal: AbortSignal | undefined,
  ) {
    this.#config.log.info?.(`retrying ${call.method} ${call.path} in ${decision.delayMs} ms: ${decision.reason}`, {
      attempt,
      delayMs: decision.delayMs,
    });
    await sleep(decision.delayMs, signal);
  }

  #headers(call: ApiCall, options: RequestOptions): Record<string, string> {
    const base = this.#config.headers;
    const extra = options.headers;
    if (!extra && !call.body) return base as Record<string, string>;
    if (!extra && call.body?.kind === 'json') return this.#jsonHeaders as Record<string, string>;
    const headers: Record<string, string> = { ...base };
    if (extra) for (const name in extra) headers[name.toLowerCase()] = extra[name] as string;
    if (call.body?.kind === 'json') headers['content-type'] = 'application/json';
    // The key always comes from the client, whatever the per-call headers said.
    headers['x-api-key'] = base['x-api-key'] as string;
    return headers;
  }

  async #attempt(
    call: ApiCall,
    url: string,
    headers: Record<string, string>,
    timeout: number,
    signal: AbortSignal | undefined,
    attempt: number,
  ): Promise<ApiResult> {
    signal?.throwIfAborted();
    const { log } = this.#config;
    const started = log.debug ? performance.now() : 0;
    let response: TransportResponse;
    try {
      let body: string | Readable | undefined;
      let sendHeaders = headers;
      let onBodyBytes: ((bytes: number) => void) | undefined;
      if (call.body?.kind === 'json') body = call.body.text;
      else if (call.body?.kind === 'stream') {
        const opened = call.body.open();
        body = opened.stream;
        sendHeaders = { ...headers, ...opened.headers };
        if (call.onUploadProgress) onBodyBytes = progressCounter(call.onUploadProgress, opened.headers, log);
      }
      response = await this.#config.transport.send({
        method: call.method,
        url,
        headers: sendHeaders,
        body,
        signal,
        timeout,
        onBodyBytes,
      });
    } catch (error) {
      log.debug?.(`${call.method} ${call.path} failed`, {
        method: call.method,
        path: call.path,
        attempt,
        durationMs: Math.round(performance.now() - started),
        error: error instanceof Error ? error.message : String(error),
      });
      if (signal?.aborted) throw signal.reason;
      if (error instanceof DeadlineExceededError) throw new APITimeoutError(timeout, { cause: error });
      if (error instanceof MessagingError) throw error;
      if (refusedByHttpClient(error)) {
        // Never sent, and it would fail the same way again: the caller's input, not the network.
        throw new ValidationError(`The HTTP client refused ${call.method} ${call.path} before sending it`, [
          { path: '', message: error instanceof Error ? error.message : String(error) },
        ]);
      }
      if (error instanceof BodyTooLargeError) {
        throw new ResponseValidationError(call.endpoint, error.status, undefined, [
          { path: '', message: error.message },
        ]);
      }
      const wrapped = new APIConnectionError(
        `Could not complete ${call.method} ${call.path}: ${describeNetworkError(error)}. Check that the base URL is reachable from this server.`,
        { cause: error },
      );
      if (failedBeforeConnecting(error)) neverSent.add(wrapped);
      throw wrapped;
    }
    log.debug?.(`${call.method} ${call.path} ${response.status}`, {
      method: call.method,
      path: call.path,
      status: response.status,
      attempt,
      durationMs: Math.round(performance.now() - started),
      requestId: response.headers['x-request-id'],
    });
    return toResult(call, response);
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
      if (!warned) log.warn?.('onUploadProgress threw; the upload goes on', { error: String(error) });
      warned = true;
    }
  };
}

function toResult(call: ApiCall, response: TransportResponse): ApiResult {
  const { status, headers, text } = response;
  if (status >= 300 && status < 400) {
    const location = headers['location'] ?? '(no Location header)';
    const error = errorFromResponse(status, text, headers);
    error.message = `The service answered ${call.method} ${call.path} with HTTP ${status}, redirecting to ${location}. The SDK does not follow redirects, so your API key only goes to the base URL's origin: check that baseUrl is the tenant URL from your dashboard.`;
    throw error;
  }
  if (status < 200 || status >= 300) throw errorFromResponse(status, text, headers);
  if (text === '' || status === 204) return { status, headers, body: null };
  try {
    return { status, headers, body: JSON.parse(text) };
  } catch {
    throw new ResponseValidationError(call.endpoint, status, text, [
      {
        path: '',
        message: `expected a JSON body, got ${headers['content-type'] ?? 'no content type'}: ${JSON.stringify(text.slice(0, 120))}`,
      },
    ]);
  }
}
