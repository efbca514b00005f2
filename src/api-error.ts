import type { Scope } from './endpoints.js';
import type { ErrorCode } from './error-codes.js';
import type { ResponseHeaders } from './errors.js';
import { isPlainObject, ownValue } from './internal/values/is-plain-object.js';
import { MessagingError } from './messaging-error.js';

/** What an `APIError` knows besides its answer: the request, and what the endpoint table says of it. */
export interface APIErrorDetails {
  /** @default by class and status: `auth.invalid_key` for an `AuthenticationError`, `http.status` for a plain `APIError` */
  readonly code?: ErrorCode | undefined;
  /** The request's URL, without its query string. @default undefined */
  readonly url?: string | undefined;
  /** The tenant URL the client was given (`baseUrl`). @default undefined */
  readonly baseUrl?: string | undefined;
  /** For a `NotFoundError` of a message log: its id. @default undefined */
  readonly messageLogId?: number | undefined;
  /** For a `PermissionDeniedError`: the scope its endpoint needs. @default undefined */
  readonly requiredScope?: Scope | undefined;
}

/**
 * Raised when the service answered with a non-2xx status. Subclasses name the common statuses,
 * so `catch` blocks can branch with `instanceof` (or on `code`) instead of comparing numbers.
 *
 * @example
 * ```ts
 * catch (err) {
 *   if (err instanceof APIError) console.error(err.code, err.status, err.message, err.requestId)
 * }
 * ```
 */
export class APIError extends MessagingError {
  /** The HTTP status code. */
  readonly status: number;
  /**
   * The parsed JSON body, or the raw text when the body was not JSON (an HTML page from a proxy).
   * The error's `message` is the SDK's own, written from its code and fields; the service's own
   * words are on `serverMessage`.
   */
  readonly body: unknown;
  /**
   * The body's `message`, as the service wrote it (e.g. Laravel's `Unauthenticated.`), when it is
   * a string: kept here, never as the error's message.
   * @default undefined
   * @example `if (error.serverMessage) log.debug('service said', error.serverMessage)`
   */
  readonly serverMessage: string | undefined;
  /** The response headers, lower-case names. */
  readonly headers: ResponseHeaders;
  /** The `x-request-id` response header, when the service or a proxy sent one: quote it to support. */
  readonly requestId: string | undefined;
  /**
   * Milliseconds the service asked to wait before trying again (`Retry-After` in seconds or as an
   * HTTP date, or `X-RateLimit-Reset`), when it said; mostly on 429 and 503.
   */
  readonly retryAfter: number | undefined;
  /**
   * The request's URL without its query string, when the SDK made the request.
   * @default undefined
   */
  readonly url: string | undefined;
  /**
   * The tenant URL the client was given, when the SDK made the request: what a `not_found.route` names.
   * @default undefined
   */
  readonly baseUrl: string | undefined;

  constructor(status: number, message: string, body: unknown, headers: ResponseHeaders, details?: APIErrorDetails) {
    super(message, { code: details?.code ?? defaultCode(new.target, status) });
    this.status = status;
    this.body = body;
    const said = ownValue(body, 'message');
    this.serverMessage = typeof said === 'string' ? said : undefined;
    this.headers = headers;
    this.requestId = headers['x-request-id'] ?? headers['request-id'];
    this.retryAfter = retryAfterMs(headers, Date.now());
    this.url = details?.url;
    this.baseUrl = details?.baseUrl;
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

  /** `details` may be the scope alone, as before `APIErrorDetails` existed. */
  constructor(
    status: number,
    message: string,
    body: unknown,
    headers: ResponseHeaders,
    details?: APIErrorDetails | Scope,
  ) {
    const given = typeof details === 'string' ? { requiredScope: details } : details;
    super(status, message, body, headers, given);
    this.requiredScope = given?.requiredScope;
  }
}

/**
 * Raised on 404. `code` tells a wrong URL from a wrong id: `not_found.message_log` when the log
 * does not exist in this tenant's workspace (`messageLogId` names it), `not_found.route` when the
 * endpoint does not (the base URL is not the tenant URL), `not_found.resource` for a path off the
 * endpoint table.
 *
 * @example
 * ```ts
 * const log = await client.messages.get(id).catch((e) =>
 *   e instanceof NotFoundError && e.code === 'not_found.message_log' ? null : Promise.reject(e))
 * ```
 */
export class NotFoundError extends APIError {
  /**
   * The id of the message log that does not exist (`not_found.message_log`).
   * @default undefined
   */
  readonly messageLogId: number | undefined;

  constructor(status: number, message: string, body: unknown, headers: ResponseHeaders, details?: APIErrorDetails) {
    super(status, message, body, headers, details);
    this.messageLogId = details?.messageLogId;
  }
}

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

/** Each subclass's code when none is given (a `NotFoundError` made by hand names no log, so `not_found.resource`). */
const CLASS_CODES: readonly (readonly [abstract new (...args: never[]) => APIError, ErrorCode])[] = [
  [AuthenticationError, 'auth.invalid_key'],
  [PermissionDeniedError, 'scope.missing'],
  [NotFoundError, 'not_found.resource'],
  [UnprocessableEntityError, 'validation.rejected'],
  [RateLimitError, 'rate_limit.exceeded'],
  [InternalServerError, 'server.error'],
];

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

/** The code of an error made without one: by its class, and for a plain `APIError` by status. */
function defaultCode(made: abstract new (...args: never[]) => APIError, status: number): ErrorCode {
  for (const [Class, code] of CLASS_CODES) if (made === Class || made.prototype instanceof Class) return code;
  return status >= 300 && status < 400 ? 'http.redirect' : 'http.status';
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
