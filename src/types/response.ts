/** The rate limit an answer reported, from `X-RateLimit-Limit`, `X-RateLimit-Remaining`, and `X-RateLimit-Reset` or `Retry-After`. */
export interface RateLimitInfo {
  /** Requests allowed per window (`X-RateLimit-Limit`), when sent. */
  readonly limit: number | null;
  /** Requests left in this window (`X-RateLimit-Remaining`), when sent. */
  readonly remaining: number | null;
  /** When the window resets or the wait ends (`X-RateLimit-Reset`, else `Retry-After`), when sent. */
  readonly resetAt: Date | null;
}

/** What `.withResponse()` tells about the answer behind a result. */
export interface ResponseInfo {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** Its headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Its `x-request-id`, when the service (or a proxy) sent one: quote it to support. */
  readonly requestId: string | undefined;
  /** The rate limit it reported, or null when it sent no rate-limit header. */
  readonly rateLimit: RateLimitInfo | null;
  /** Attempts the call made (1 when it was not retried). */
  readonly attempts: number;
  /** Milliseconds from the call to its answer, retries and waits included. */
  readonly durationMs: number;
}

/** A result with the answer it came from. */
export interface WithResponse<T> {
  readonly data: T;
  readonly response: ResponseInfo;
}

/**
 * What every method returns: a plain Promise of the result (await it as usual, at no extra cost),
 * plus `.withResponse()` for the status, headers, request id and rate limit of the answer.
 *
 * @example
 * ```ts
 * const { data: log, response } = await client.messages.send(params).withResponse()
 * console.log(log.id, response.requestId, response.rateLimit?.remaining)
 * ```
 */
export interface APIPromise<T> extends Promise<T> {
  /** Resolves with `{ data, response }` instead of `data` alone; rejects as the call does. */
  withResponse(): Promise<WithResponse<T>>;
}
