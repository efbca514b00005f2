import { API_PREFIX } from '../../endpoints.js';
import { type AnsweredRequest, errorFromResponse } from '../../error-from-response.js';
import { ResponseValidationError } from '../../errors.js';
import { parseJson } from '../../internal/requests/json.js';
import type { Route } from '../../internal/requests/route.js';
import type { TransportResponse } from '../transport/transport.js';

/** A successful (2xx) response with its JSON body parsed. */
export interface ApiResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** What of the exchange an answer's error names: the filled path, the URL, the tenant URL. */
export interface ResultRequest {
  readonly path: string;
  readonly url: string;
}

/** The request an error answered, its URL without the query (a lookup's phone stays out of messages). */
function answered(route: Route, x: ResultRequest, apiBase: string): AnsweredRequest {
  const query = x.url.indexOf('?');
  const url = query === -1 ? x.url : x.url.slice(0, query);
  const baseUrl = apiBase.endsWith(API_PREFIX) ? apiBase.slice(0, -API_PREFIX.length) : apiBase;
  return { method: route.method, path: x.path, url, baseUrl, scope: route.scope ?? undefined };
}

/**
 * Reads a complete response: a 2xx body as JSON (an empty body or 204 as `null`), anything else
 * as the typed `APIError` for its status. A 3xx is never followed: the key would go wherever
 * `Location` points.
 */
export function toResult(route: Route, x: ResultRequest, response: TransportResponse, apiBase: string): ApiResult {
  const { status, headers, text } = response;
  const { path } = x;
  if (status >= 300 && status < 400) {
    // A server's text in our message: no control characters (log lines stay one line each).
    const location = (headers['location'] ?? '(no Location header)').slice(0, 200).replace(/\p{Cc}/gu, '?');
    const error = errorFromResponse(status, text, headers, answered(route, x, apiBase));
    error.message = `The service answered ${route.method} ${path} with HTTP ${status}, redirecting to ${location}. The SDK does not follow redirects, so your API key only goes to the base URL's origin: check that baseUrl is the tenant URL from your dashboard.`;
    throw error;
  }
  // A 403 names the scope its endpoint needs (the service's body does not): the endpoint table knows it.
  if (status < 200 || status >= 300) throw errorFromResponse(status, text, headers, answered(route, x, apiBase));
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
