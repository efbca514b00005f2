import { errorFromResponse } from '../../error-from-response.js';
import { ResponseValidationError } from '../../errors.js';
import { parseJson } from '../../internal/json.js';
import type { Route } from '../../internal/route.js';
import type { TransportResponse } from '../transport/transport.js';

/** A successful (2xx) response with its JSON body parsed. */
export interface ApiResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/**
 * Reads a complete response: a 2xx body as JSON (an empty body or 204 as `null`), anything else
 * as the typed `APIError` for its status. A 3xx is never followed: the key would go wherever
 * `Location` points.
 */
export function toResult(route: Route, path: string, response: TransportResponse): ApiResult {
  const { status, headers, text } = response;
  if (status >= 300 && status < 400) {
    // A server's text in our message: no control characters (log lines stay one line each).
    const location = (headers['location'] ?? '(no Location header)').slice(0, 200).replace(/\p{Cc}/gu, '?');
    const error = errorFromResponse(status, text, headers);
    error.message = `The service answered ${route.method} ${path} with HTTP ${status}, redirecting to ${location}. The SDK does not follow redirects, so your API key only goes to the base URL's origin: check that baseUrl is the tenant URL from your dashboard.`;
    throw error;
  }
  // A 403 names the scope its endpoint needs (the service's body does not): the endpoint table knows it.
  if (status < 200 || status >= 300) throw errorFromResponse(status, text, headers, route.scope ?? undefined);
  if (text === '' || status === 204) return { status, headers, body: null };
  try {
    return { status, headers, body: parseJson(text) };
  } catch (error) {
    const why = error instanceof SyntaxError && /nested deeper/.test(error.message) ? ` (${error.message})` : '';
    throw new ResponseValidationError(route.label, status, text, [
      {
        path: '',
        message: `expected a JSON body${why}, got ${headers['content-type']?.slice(0, 100) ?? 'no content type'}: ${JSON.stringify(text.slice(0, 120))}`,
      },
    ]);
  }
}
