import type { Logger, LogLevel } from './logger.js';
import type { PollingOptions } from './polling.js';

/**
 * An undici `Dispatcher` (an `Agent`, a `ProxyAgent`, one with mTLS), named by the method the SDK
 * calls rather than imported from undici: undici's types need `@types/node`, and the main entry's
 * declarations must compile in a Worker project, which has none. Every undici `Dispatcher` is one.
 *
 * @example
 * ```ts
 * import { Agent } from 'undici'
 * const dispatcher: UndiciDispatcher = new Agent({ connect: { ca } })
 * ```
 */
export interface UndiciDispatcher {
  /** undici's `Dispatcher.dispatch(options, handler)`. */
  dispatch(options: object, handler: object): boolean;
}

/** A `fetch`-shaped function: the global `fetch`, msw's, or an in-process fake's. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Options of `new MessagingClient(options)`.
 *
 * @example
 * ```ts
 * const client = new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey: process.env.KEY })
 * ```
 */
export interface ClientOptions {
  /**
   * The full tenant URL, with scheme, to which `/api/v1` is appended once (a path prefix such as
   * `https://host/t/acme` is kept). `https://acme.example.com`, `https://acme.example.com/` and
   * `https://acme.example.com/api/v1` are the same.
   * @default process.env.TENANT_MESSAGING_BASE_URL
   */
  baseUrl?: string | undefined;
  /**
   * The tenant API key, sent as `X-Api-Key`. Keep it on the server.
   * @default process.env.TENANT_MESSAGING_API_KEY
   */
  apiKey?: string | undefined;
  /**
   * Milliseconds one attempt may take, connection, headers and body together.
   * @default 30000
   */
  timeout?: number | undefined;
  /**
   * How many times a failed request is retried when retrying is safe (see the README's retry table).
   * @default 2
   */
  maxRetries?: number | undefined;
  /**
   * Headers added to every request (they cannot replace `X-Api-Key`).
   * @default {}
   */
  defaultHeaders?: Readonly<Record<string, string>> | undefined;
  /**
   * An undici Dispatcher (an `Agent`, `ProxyAgent`, or one with mTLS) for the default transport.
   * @default a keep-alive `Agent` owned by the client
   */
  dispatcher?: UndiciDispatcher | undefined;
  /**
   * A fetch-shaped transport used instead of undici: msw, an in-process fake, another runtime.
   * A `fetch` that throws when called has sent nothing: the call fails as never sent (and a send
   * is retried).
   * @default undefined: undici's dispatcher, or the runtime's own `fetch` where the `undici` it
   * imports cannot dispatch (Bun)
   * @example
   * ```ts
   * new MessagingClient({ baseUrl, apiKey, fetch: (url, init) => fetch(url, { ...init, proxy: 'http://proxy:3128' }) }) // Bun
   * ```
   */
  fetch?: FetchLike | undefined;
  /**
   * Sends every request through an HTTP proxy: one proxy URL, or `'env'` for the `HTTP_PROXY`,
   * `HTTPS_PROXY` and `NO_PROXY` variables. It runs on the client's own keep-alive pool (connection
   * limit, deadlines and `close()` as without a proxy).
   * - a URL (`http://` or `https://`, the proxy's origin only): one proxy for every request.
   *   Credentials in it (`http://user:pass@proxy:3128`) are sent as `Proxy-Authorization` and
   *   never appear in errors, logs or an inspected client.
   * - `'env'`: the `http_proxy`/`HTTP_PROXY`, `https_proxy`/`HTTPS_PROXY` and `no_proxy`/`NO_PROXY`
   *   variables (the lower-case name first), as they are when the client is constructed. An https
   *   base URL uses `HTTPS_PROXY`, else `HTTP_PROXY`; a host `NO_PROXY` names goes direct.
   *
   * An `https://` base URL goes through a `CONNECT` tunnel: the proxy sees the host and port
   * only, and the API key travels inside TLS. Not with `dispatcher` or `fetch` (they choose
   * their own route).
   * @default undefined (no proxy)
   * @example
   * ```ts
   * new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey, proxy: 'http://proxy.internal:3128' })
   * new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey, proxy: 'env' })
   * ```
   */
  proxy?: 'env' | (string & {}) | undefined;
  /**
   * Allows a plain `http://` base URL to a host other than loopback. The API key would cross the
   * network unencrypted: only for a network you trust.
   * @default false
   */
  allowInsecureHttp?: boolean | undefined;
  /**
   * Allows constructing the client in a browser, where anyone who opens the page can read the key.
   * API keys must stay on your server (spec section 5).
   * @default false
   */
  dangerouslyAllowBrowser?: boolean | undefined;
  /**
   * Where log lines go: anything with `debug`, `info`, `warn` and `error` methods. Each request
   * logs method, path, status, attempt, duration and request id; keys and bodies are never logged.
   * @default console
   */
  logger?: Logger | undefined;
  /**
   * The lowest level logged: `debug` (every request), `info` (retries), `warn`, `error` or `off`.
   * @default process.env.TENANT_MESSAGING_LOG, else 'warn'
   */
  logLevel?: LogLevel | undefined;
  /**
   * Limits shared by every `waitForDelivery` of this client: polls in flight and polls per second.
   * @default { maxConcurrent: 16, maxPerSecond: 100 }
   */
  polling?: PollingOptions | undefined;
  /**
   * The client-wide rate gate every request passes (shared with `withOptions` clients that share
   * the connection pool, unless `baseUrl`, `apiKey` or `rateLimit` changes). See {@link RateLimitOptions}.
   * @default { adaptive: true } (no fixed rate)
   * @example
   * ```ts
   * new MessagingClient({ baseUrl, apiKey, rateLimit: { requestsPerSecond: 20 } })
   * ```
   */
  rateLimit?: RateLimitOptions | undefined;
}

/**
 * How the client paces its requests. A call waiting at the gate can be cancelled by its `signal`;
 * its `timeout` (one attempt) starts once it passes the gate.
 *
 * @example
 * ```ts
 * const rateLimit: RateLimitOptions = { requestsPerSecond: 10, adaptive: true }
 * ```
 */
export interface RateLimitOptions {
  /**
   * A hard cap: request starts are spaced `1000 / requestsPerSecond` ms apart, so no sliding second
   * ever holds more. For tenants who know their quota. A positive, finite number (0.5 = one every 2 s).
   * @default undefined (no fixed cap)
   */
  requestsPerSecond?: number | undefined;
  /**
   * Follows the service's own signals: a 429 with `Retry-After` (or `X-RateLimit-Reset`) holds
   * every request of the client until then (60 s at most), and `X-RateLimit-Limit`/`-Remaining`
   * pace requests so that a long run stays just under the limit.
   * @default true
   */
  adaptive?: boolean | undefined;
  /**
   * Per-sender lanes: at most `requestsPerSecond` sends of one sender (`sender_phone` or
   * `sender_number_id`, as given) in any sliding second at the service. A send waiting for its
   * sender's lane never delays sends of other senders. Only sends count; reads do not.
   * @default undefined (no per-sender lane)
   * @example
   * ```ts
   * new MessagingClient({ rateLimit: { perSender: { requestsPerSecond: 80 } } }) // WhatsApp Cloud API's default
   * ```
   */
  perSender?: PerSenderLimit | undefined;
  /**
   * Per-recipient pacing: two sends to one recipient arrive at least `minInterval` ms apart. The
   * recipient is `to_phone` in its canonical E.164 form (libphonenumber-js, loaded only with this
   * option), so `+1 (555) 123-0001` and `+15551230001` are one person; the wire keeps what you gave.
   * A send waiting for its recipient never delays sends to others.
   * @default undefined (no per-recipient pacing)
   * @example
   * ```ts
   * new MessagingClient({ rateLimit: { perRecipient: { minInterval: 6_000 } } }) // one message per 6 s per person
   * ```
   */
  perRecipient?: PerRecipientLimit | undefined;
}

/**
 * A per-sender lane: sends per sliding second for each sender.
 *
 * @example
 * ```ts
 * const perSender: PerSenderLimit = { requestsPerSecond: 10 }
 * ```
 */
export interface PerSenderLimit {
  /**
   * Sends per sliding second for one sender: a positive, finite number (0.5 = one every 2 s; from 1 up it is floored, 2.5 allowing 2).
   */
  requestsPerSecond: number;
}

/**
 * Per-recipient pacing: the shortest gap between two sends to one recipient.
 *
 * @example
 * ```ts
 * const perRecipient: PerRecipientLimit = { minInterval: 1_000 }
 * ```
 */
export interface PerRecipientLimit {
  /**
   * Ms between two sends to one recipient, measured where the service sees them: from the answer
   * of one to the start of the next. An integer >= 1.
   */
  minInterval: number;
}

/**
 * Options every method takes as its last argument; they override the client's for one call.
 *
 * @example
 * ```ts
 * await client.messages.get(42, { timeout: 5_000, signal: AbortSignal.timeout(10_000) })
 * ```
 */
export interface RequestOptions {
  /**
   * Cancels the call at once; it rejects with the signal's reason.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /**
   * Milliseconds one attempt may take.
   * @default the client's `timeout`
   */
  timeout?: number | undefined;
  /**
   * Retries for this call.
   * @default the client's `maxRetries`
   */
  maxRetries?: number | undefined;
  /**
   * Extra headers for this call.
   * @default {}
   */
  headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * Options of `messages.send`: the per-call options plus upload progress.
 *
 * @example
 * ```ts
 * await client.messages.send(params, { onUploadProgress: ({ loaded, total }) => console.log(loaded, total) })
 * ```
 */
export interface SendOptions extends RequestOptions {
  /**
   * Called as a media body's bytes are written to the connection (not as they are read from
   * disk), with `{ loaded, total }`; `total` is undefined for a stream of unknown size. Not called
   * for text messages. With the `fetch` option, bytes are counted as fetch reads the body.
   * @default undefined
   */
  onUploadProgress?: ((progress: UploadProgress) => void) | undefined;
}

/**
 * How much of a request body has been sent, as `onUploadProgress` reports it.
 *
 * @example
 * ```ts
 * await client.messages.send(params, { onUploadProgress: ({ loaded, total }) => bar.update(loaded / (total ?? loaded)) })
 * ```
 */
export interface UploadProgress {
  /** Bytes of the body written to the connection so far, in this attempt. */
  readonly loaded: number;
  /** The body's size, when known (`Content-Length`); undefined for a stream of unknown size. */
  readonly total: number | undefined;
}
