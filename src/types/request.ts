import type { JsonValue } from './json.js';
import type { ListQuery } from './query.js';

/** The HTTP methods `client.request()` may use. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A schema `client.request()` validates the answer with: Zod's, or anything with the same `safeParse`. */
export interface ResultSchema<T> {
  safeParse(
    data: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/**
 * A request to an endpoint the SDK does not wrap, for `client.request()`.
 *
 * @example
 * ```ts
 * await client.request({ method: 'GET', path: '/sender-numbers/1' })
 * ```
 */
export interface RawRequest<T = JsonValue> {
  /** The HTTP method. GET and HEAD are retried like every read; others never once they may have arrived. */
  method: HttpMethod;
  /** The path below `/api/v1`, starting with `/`, e.g. `/sender-numbers/1`. Never an absolute URL. */
  path: string;
  /**
   * Query parameters, passed through as given.
   * @default {}
   */
  query?: ListQuery | undefined;
  /**
   * A JSON body (not for GET or HEAD).
   * @default undefined (no body)
   */
  body?: JsonValue | undefined;
  /**
   * Validates and types the answer's JSON body (the whole body, not its `data` member).
   * @default undefined (the body is returned as an open JSON value)
   */
  schema?: ResultSchema<T> | undefined;
}
