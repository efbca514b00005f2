import type { Scope } from './endpoints.js';
import { MessagingError, type ResponseHeaders } from './errors.js';
import { isPlainObject, ownValue } from './internal/is-plain-object.js';

/**
 * Raised when the service answered with a non-2xx status. Subclasses name the common statuses,
 * so `catch` blocks can branch with `instanceof` instead of comparing numbers.
 *
 * @example
 * ```ts
 * catch (err) {
 *   if (err instanceof APIError) console.error(err.status, err.message, err.requestId)
 * }
 * ```
 */
export class APIError extends MessagingError {
  /** The HTTP status code. */
  readonly status: number;
  /**
   * The parsed JSON body, or the raw text when the body was not JSON (an HTML page from a proxy).
   * The error's `message` is the body's `message` when that is a non-blank string; otherwise a
   * line naming the status and describing the body from its first 4 KiB.
   */
  readonly body: unknown;
  /** The response headers, lower-case names. */
  readonly headers: ResponseHeaders;
  /** The `x-request-id` response header, when the service or a proxy sent one: quote it to support. */
  readonly requestId: string | undefined;
  /**
   * Milliseconds the service asked to wait before trying again (`Retry-After` in seconds or as an
   * HTTP date, or `X-RateLimit-Reset`), when it said; mostly on 429 and 503.
   */
  readonly retryAfter: number | undefined;

  constructor(status: number, message: string, body: unknown, headers: ResponseHeaders) {
    super(message);
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.requestId = headers['x-request-id'] ?? headers['request-id'];
    this.retryAfter = retryAfterMs(headers, Date.now());
  }
}

/**
 * Raised on 401: the API key is missing, invalid, expired or revoked.
 *
 * @example
 * ```ts
 * if (error instanceof AuthenticationError) console.error('Rotate the key: the service refused it')
 * ```
 */
export class AuthenticationError extends APIError {}

/**
 * Raised on 403: the API key lacks the scope the endpoint needs (see the README's endpoint table).
 *
 * @example
 * ```ts
 * if (error instanceof PermissionDeniedError) console.error(error.message) // 'The API key does not include the required scope.'
 * ```
 */
export class PermissionDeniedError extends APIError {
  /**
   * The scope the refused endpoint needs, which the key lacks: known for every method of the
   * client whose endpoint needs one, and for `client.request()` to a path of the API's endpoints
   * (`GET /messages/42` is `GET /messages/{messageLog}`); undefined for any other path, and for an
   * error made by hand. The service's body does not name it (spec section 5): the endpoint table does.
   *
   * @default undefined
   * @example
   * ```ts
   * if (error instanceof PermissionDeniedError) console.error(`Use a key with the ${error.requiredScope} scope`)
   * ```
   */
  readonly requiredScope: Scope | undefined;

  constructor(status: number, message: string, body: unknown, headers: ResponseHeaders, requiredScope?: Scope) {
    super(status, message, body, headers);
    this.requiredScope = requiredScope;
  }
}

/**
 * Raised on 404: for `messages.get`, the log does not exist in this tenant's workspace.
 *
 * @example
 * ```ts
 * const log = await client.messages.get(id).catch((e) => (e instanceof NotFoundError ? null : Promise.reject(e)))
 * ```
 */
export class NotFoundError extends APIError {}

/**
 * Raised on 422: the service rejected the request's fields. `errors` maps each field to its messages.
 *
 * @example
 * ```ts
 * if (error instanceof UnprocessableEntityError) form.showError('to_phone', error.errors['to_phone']?.[0])
 * ```
 */
export class UnprocessableEntityError extends APIError {
  /**
   * Field name to messages, as Laravel reports them, e.g. `{ to_phone: ['The to phone field is required.'] }`.
   * Only well-formed entries are kept: a field whose value is a string (read as one message) or an
   * array with at least one string (its strings). Other values are dropped, never converted; the
   * raw body stays on `body`. A field named `__proto__` is an ordinary key.
   *
   * @default {} when the body has no `errors` object
   */
  readonly errors: Readonly<Record<string, readonly string[]>>;

  constructor(status: number, message: string, body: unknown, headers: ResponseHeaders) {
    super(status, message, body, headers);
    this.errors = fieldErrors(body);
  }
}

/**
 * Raised on 429: too many requests. `retryAfter` is how long the service asked to wait, in ms, when it said.
 *
 * @example
 * ```ts
 * // setTimeout from 'node:timers/promises'
 * if (error instanceof RateLimitError) await setTimeout(error.retryAfter ?? 1_000)
 * ```
 */
export class RateLimitError extends APIError {}

/**
 * Raised on any status >= 500: the service or a proxy in front of it failed (reads were retried first).
 *
 * @example
 * ```ts
 * if (error instanceof InternalServerError) console.error(error.status, error.requestId)
 * ```
 */
export class InternalServerError extends APIError {}

/**
 * The well-formed part of a 422 body's `errors`: each field whose value is a string or an array
 * holding at least one string, mapped to those strings. Anything else (numbers, objects, nested
 * arrays, a non-object `errors`) is dropped, not stringified: `String()` throws on values such as
 * `{ "toString": 0 }` and recurses on nested arrays, and the raw body stays on `error.body`.
 */
function fieldErrors(body: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const errors = ownValue(body, 'errors');
  if (!isPlainObject(errors)) return out;
  for (const field of Object.keys(errors)) {
    const value = errors[field];
    const messages = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter(isString) : [];
    // defineProperty, not assignment: a field named `__proto__` must stay a field, not become
    // the record's prototype.
    if (messages.length > 0)
      Object.defineProperty(out, field, { value: messages, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/**
 * Reads how long to wait from `Retry-After` (seconds, or an HTTP date) or `X-RateLimit-Reset`
 * (a Unix timestamp in seconds, as Laravel sends it). Returns ms, or undefined when neither is usable.
 */
export function retryAfterMs(headers: ResponseHeaders, now: number): number | undefined {
  const retryAfter = headers['retry-after']?.trim();
  if (retryAfter) {
    const seconds = firstNumber(retryAfter, /^(\d+(?:\.\d+)?)\s*(?:,|$)/);
    if (seconds !== undefined) return Math.round(seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = firstNumber(headers['x-ratelimit-reset']?.trim() ?? '', /^(\d+)\s*(?:,|$)/);
  if (reset !== undefined) return Math.max(0, reset * 1000 - now);
  return undefined;
}

/**
 * The number a delay header starts with, when the value is that number alone or the first of a
 * list: a header sent twice arrives joined with ", " ("7, 7"), which `Date.parse` would read as a
 * date in 2007, so a wait the service asked for would become no wait at all. The patterns are
 * anchored, with no nested or overlapping repetition: linear in the value's length.
 */
function firstNumber(value: string, pattern: RegExp): number | undefined {
  const digits = pattern.exec(value)?.[1];
  return digits === undefined ? undefined : Number(digits);
}
