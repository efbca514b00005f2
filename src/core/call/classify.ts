import { APIError } from '../../api-error.js';
import { causeSentence } from '../../cause-sentence.js';
import {
  APIConnectionError,
  APITimeoutError,
  MessagingError,
  ResponseValidationError,
  ValidationError,
} from '../../errors.js';
import {
  connectionCode,
  describeNetworkError,
  failedBeforeConnecting,
  refusedByHttpClient,
} from '../../internal/requests/network-error.js';
import { describeValue } from '../../internal/values/describe-value.js';
import type { HttpMethod } from '../../types/request.js';
import { BodyTooLargeError, DeadlineExceededError, NeverSentError } from '../transport/transport.js';

/** What classifying a failed exchange needs to know about the call. */
export interface FailureContext {
  /** `GET /messages/{messageLog}`. */
  readonly label: string;
  /** The filled path, for messages: `/messages/42`. */
  readonly path: string;
  readonly method: HttpMethod;
  /** The attempt's deadline in ms. */
  readonly timeout: number;
  /** The caller's signal: when it aborted, its reason is the answer, whatever the transport said. */
  readonly signal: AbortSignal | undefined;
}

/**
 * Turns whatever a transport threw into the typed error the caller gets. A pure function of the
 * error and the call: no I/O, no clock, so each case has an exact test (test/unit/core/classify.test.ts).
 *
 * - the caller aborted: the signal's reason, as given;
 * - the deadline passed: `APITimeoutError`;
 * - an SDK error (a media source that failed, say): as is;
 * - the HTTP client refused the request's own arguments: `ValidationError` (never sent, and it
 *   would fail the same way again);
 * - a response body over the size cap: `ResponseValidationError`;
 * - anything else is the network: `APIConnectionError`, with `neverSent` set when the connection
 *   was never made, or the HTTP client failed before it took the request (`NeverSentError`):
 *   that is what makes a send safe to retry.
 */
export function classifyFailure(error: unknown, call: FailureContext): unknown {
  if (call.signal?.aborted) return call.signal.reason;
  if (error instanceof DeadlineExceededError) {
    return new APITimeoutError(call.timeout, { cause: error, neverSent: error.neverSent });
  }
  if (error instanceof MessagingError) return error;
  // The HTTP client failed before it took the request: what it threw decides the class, and
  // whatever that is, nothing was sent.
  const neverSent = error instanceof NeverSentError;
  const thrown: unknown = neverSent ? error.cause : error;
  if (thrown instanceof MessagingError) return thrown;
  if (refusedByHttpClient(thrown)) {
    return new ValidationError(
      `The HTTP client refused ${call.method} ${call.path} before sending it`,
      [{ path: '', message: thrown instanceof Error ? thrown.message : describeValue(thrown) }],
      { cause: thrown },
    );
  }
  if (thrown instanceof BodyTooLargeError) {
    return new ResponseValidationError(call.label, thrown.status, undefined, [{ path: '', message: thrown.message }]);
  }
  return new APIConnectionError(
    `Could not complete ${call.method} ${call.path}: ${causeSentence(describeNetworkError(thrown))} Check that the base URL is reachable from this server.`,
    { cause: thrown, neverSent: neverSent || failedBeforeConnecting(thrown), code: connectionCode(thrown) },
  );
}

/**
 * True when a failed request may still have been processed by the service: a connection error
 * after the connection was made (a timeout, a reset), a status that does not say "not done"
 * (408 and 5xx may come from a proxy while the service carried on), or a redirect (a 303 after a
 * POST usually points at what the POST created).
 */
export function mayHaveBeenProcessed(error: unknown): boolean {
  if (error instanceof APIConnectionError) return !error.neverSent;
  if (error instanceof ValidationError) return error.mayHaveBeenSent;
  if (error instanceof APIError)
    return error.status === 408 || error.status >= 500 || (error.status >= 300 && error.status < 400);
  return false;
}
