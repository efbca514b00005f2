import { clientParts, derivedOptions, type OwnParts } from './client-parts.js';
import { Executor } from './core/call/executor.js';
import { openObject } from './core/call/parse.js';
import { resolveClientConfig } from './internal/options/client-config.js';
import { readFields } from './internal/values/input.js';
import { Contacts } from './resources/contacts.js';
import { Deliveries } from './resources/deliveries.js';
import { Messages } from './resources/messages.js';
import { RawRequests } from './resources/raw-requests.js';
import { SenderNumbers } from './resources/sender-numbers.js';
import type { JsonObject, JsonValue } from './types/json.js';
import type { DeliveryUpdate, TrackDeliveriesOptions } from './types/many.js';
import type { MessageLog } from './types/message-log.js';
import type { ClientOptions, RequestOptions } from './types/options.js';
import type { WaitForDeliveryOptions } from './types/polling.js';
import type { RawRequest } from './types/request.js';
import type { APIPromise } from './types/response.js';

/**
 * The Tenant Messaging API client. Construct it once and share it: it keeps a pool of keep-alive
 * connections, and it holds no timer or socket open once a call is done.
 *
 * @example
 * ```ts
 * import { MessagingClient } from 'tenant-messaging'
 *
 * const client = new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey: process.env.TENANT_MESSAGING_API_KEY })
 * const log = await client.messages.send({ sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'Hi' })
 * const delivered = await client.waitForDelivery(log.id, { timeout: 60_000 })
 * ```
 */
export class MessagingClient {
  /**
   * Send messages, read one log, list logs, send many, reconcile.
   * @example `await client.messages.send(params)`
   */
  readonly messages: Messages;
  /**
   * Check recipients.
   * @example `await client.contacts.lookup({ phone, sender_phone })`
   */
  readonly contacts: Contacts;
  /**
   * List sender numbers.
   * @example `await client.senderNumbers.list()`
   */
  readonly senderNumbers: SenderNumbers;
  /**
   * The API root every path is appended to.
   * @example `client.baseUrl // 'https://acme.example.com/api/v1'`
   */
  readonly baseUrl: string;
  /**
   * The client's own `timeout`, in ms.
   * @default 30000
   */
  readonly timeout: number;
  /**
   * The client's own `maxRetries`.
   * @default 2
   */
  readonly maxRetries: number;

  readonly #executor: Executor;
  readonly #raw: RawRequests;
  readonly #options: ClientOptions;
  /** The connection pool, rate gate and poll scheduler; some may be a parent's (`withOptions`). */
  readonly #parts: OwnParts;
  readonly #deliveries: Deliveries;

  /**
   * @param options see {@link ClientOptions}; `baseUrl` and `apiKey` default to the
   * `TENANT_MESSAGING_BASE_URL` and `TENANT_MESSAGING_API_KEY` environment variables.
   * @throws ValidationError when an option is missing or malformed, naming it and saying how to fix it.
   */
  constructor(options: ClientOptions = {}) {
    // `process` is absent in a browser, where the config check must still run to refuse politely.
    const config = resolveClientConfig(options, globalThis.process?.env ?? {});
    this.#options = config.options;
    this.baseUrl = config.apiBase;
    this.timeout = config.timeout;
    this.maxRetries = config.maxRetries;
    // The given options, not the checked copy: they carry what `withOptions` hands over.
    const parts = clientParts(options, config);
    this.#parts = parts;
    const serverAddress = config.origin ? new URL(config.origin).host : '';
    this.#executor = new Executor({
      ...config,
      serverAddress,
      transport: parts.transport,
      rateGate: parts.rateGate,
      lanes: parts.lanes,
    });
    this.messages = new Messages(this.#executor);
    this.contacts = new Contacts(this.#executor);
    this.senderNumbers = new SenderNumbers(this.#executor);
    this.#raw = new RawRequests(this.#executor);
    this.#deliveries = new Deliveries({
      messages: this.messages,
      requestTimeout: config.timeout,
      polling: config.polling,
      scheduler: parts.scheduler,
      log: config.log,
    });
  }

  /**
   * A new client with some options changed; the rest are this client's. Unless `fetch` or
   * `dispatcher` changes, it uses this client's connection pool (no new sockets), and unless
   * `baseUrl`, `apiKey` or `polling` changes, its `waitForDelivery` calls share this client's
   * poll rate cap, and unless `baseUrl`, `apiKey` or `rateLimit` changes, its requests pass this
   * client's rate gate (one 429 pauses both). Closing this client closes the shared pool (a later call from either opens it
   * again); `close()` on the derived one leaves it open. Options given as `undefined` keep this
   * client's values.
   *
   * @example
   * ```ts
   * const patient = client.withOptions({ timeout: 120_000 })
   * const otherTenant = client.withOptions({ baseUrl: 'https://globex.example.com', apiKey: globexKey })
   * ```
   */
  withOptions(options: ClientOptions): MessagingClient {
    const given = readFields(options, 'Invalid MessagingClient options', '{ timeout: 120_000 }', 'validation.options');
    // An option given as undefined (`apiKey: process.env.UNSET`) changes nothing: it must not
    // erase the parent's value and fall back to the environment's key.
    const changed = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
    return new MessagingClient(derivedOptions(this.#options, this.#parts, changed));
  }

  /**
   * The tenant's identity and runtime context (`GET /me`). Any active key may call it.
   * Its fields are not specified: the service's object is returned as sent.
   *
   * @example
   * ```ts
   * const me = await client.me()
   * ```
   */
  me(options?: RequestOptions): APIPromise<JsonObject> {
    return this.#readObject('me', options);
  }

  /**
   * The subscription status (`GET /subscription`). Any active key may call it.
   *
   * @example
   * ```ts
   * const subscription = await client.subscription()
   * ```
   */
  subscription(options?: RequestOptions): APIPromise<JsonObject> {
    return this.#readObject('subscription', options);
  }

  /**
   * Usage counters and limits (`GET /usage`). Scope: `usage.read`.
   *
   * @example
   * ```ts
   * const usage = await client.usage()
   * ```
   */
  usage(options?: RequestOptions): APIPromise<JsonObject> {
    return this.#readObject('usage', options);
  }

  /**
   * Polls `GET /messages/{id}` until the log's `delivery_status` is `delivered` or `read`
   * (`until: 'read'`: `read`), with `interval` between polls and one overall `timeout`.
   * Network errors, 429 and 5xx are absorbed within the timeout; 401, 403 and 404 reject at once.
   * `unknown` keeps the poll going (the status is read at request time and may still change).
   * Rejects with `DeliveryTimeoutError` (carrying the last log seen) when the timeout passes.
   *
   * @example
   * ```ts
   * const log = await client.waitForDelivery(sent.id, {
   *   interval: 1_000, timeout: 60_000, onUpdate: (l) => console.log(l.delivery_status),
   * })
   * ```
   */
  waitForDelivery(id: number, options?: WaitForDeliveryOptions): APIPromise<MessageLog> {
    return this.#deliveries.wait(id, options);
  }

  /**
   * Follows the delivery of many message logs at once: yields `{ id, log, status }` each time an
   * id's `delivery_status` changes (the first read included), a final `{ id, log, status: 'timeout' }`
   * for an id that did not reach `until` within `timeout`, and a final `{ id, status: 'failed', error }`
   * for one that cannot be read (a 404 or 403: that id only, never the whole iteration). Ends when
   * every id is settled. `ids` may be an async iterable that grows (the ids out of `sendMany`),
   * so that sending and tracking overlap. Polls share the client's scheduler and its caps.
   *
   * @example
   * ```ts
   * for await (const update of client.trackDeliveries([41, 42, 43], { timeout: 600_000 })) {
   *   console.log(update.id, update.status)
   * }
   * ```
   */
  trackDeliveries(
    ids: Iterable<number> | AsyncIterable<number>,
    options?: TrackDeliveriesOptions,
  ): AsyncGenerator<DeliveryUpdate> {
    return this.#deliveries.track(ids, options);
  }

  /**
   * Calls an endpoint the SDK does not wrap (sender-number registration, key management...),
   * through the same executor as every method: the key, deadlines, typed errors, tracing and the
   * same-origin guard. `path` is below `/api/v1`; an absolute URL, or a path that could leave
   * `/api/v1` or the base URL's origin, is a `ValidationError`. GET and HEAD are retried like every
   * read; other methods never once they may have reached the service, and such an unknown outcome
   * is an `OutcomeUnknownError`. With a `schema` (Zod's, or anything with `safeParse`), the body is
   * validated and typed; without one it is returned as an open JSON value.
   *
   * @example
   * ```ts
   * const number = await client.request({ method: 'GET', path: '/sender-numbers/1' })
   * const { data, response } = await client.request({ method: 'POST', path: '/sender-numbers', body: { phone } }).withResponse()
   * ```
   */
  request<T = JsonValue>(request: RawRequest<T>, options?: RequestOptions): APIPromise<T> {
    return this.#raw.send(request, options, this.baseUrl);
  }

  /**
   * Closes the client's own connection pool. Optional: idle connections never keep the process
   * alive. A `dispatcher` you passed in is left open for you to close, and so is the pool a
   * client from `withOptions` shares with its parent.
   *
   * @example
   * ```ts
   * try {
   *   await client.messages.send(params)
   * } finally {
   *   await client.close()
   * }
   * ```
   */
  close(): Promise<void> {
    return this.#parts.ownsTransport ? this.#parts.transport.close() : Promise.resolve();
  }

  /** Shows the client without its API key. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MessagingClient { baseUrl: '${this.baseUrl}', timeout: ${this.timeout}, maxRetries: ${this.maxRetries}, apiKey: '[redacted]' }`;
  }

  /** The same redaction for `JSON.stringify(client)`. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl, timeout: this.timeout, maxRetries: this.maxRetries, apiKey: '[redacted]' };
  }

  #readObject(name: 'me' | 'subscription' | 'usage', options: RequestOptions | undefined): APIPromise<JsonObject> {
    return this.#executor.run(name, { request: {}, parse: (result) => openObject(result, name) }, options);
  }
}
