import { type CallOptions, checkCallOptions } from '../../internal/options/call-options.js';
import { toQueryString } from '../../internal/requests/query.js';
import { fillPath, type Route } from '../../internal/requests/route.js';
import type { Log } from '../../internal/runtime/log.js';
import type { RequestOptions, SendOptions } from '../../types/options.js';
import type { Lanes } from '../rate/lanes.js';
import type { RateGate } from '../rate/rate-gate.js';
import type { Transport } from '../transport/transport.js';
import type { CallRecord } from './api-promise.js';
import type { AnyCallRequest, RequestBody, SendLanes } from './call-spec.js';

/** The client's resolved settings, fixed at construction. */
export interface ExecutorConfig {
  readonly apiBase: string;
  /** The base URL's host, for traces: `acme.example.com`. */
  readonly serverAddress: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly transport: Transport;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly log: Log;
  /** The client-wide rate gate every attempt passes (shared with `withOptions` children). */
  readonly rateGate: RateGate;
  /** The per-sender and per-recipient lanes every send attempt passes first, when configured. */
  readonly lanes: Lanes | undefined;
}

/** One call, resolved: everything each attempt needs. */
export interface Exchange {
  readonly route: Route;
  readonly path: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: RequestBody | undefined;
  readonly timeout: number;
  readonly signal: AbortSignal | undefined;
  readonly onUploadProgress: CallOptions['onUploadProgress'];
  readonly record: CallRecord;
  readonly maxRetries: number;
  readonly lanes: SendLanes | undefined;
}

/** The headers of a JSON call without per-call headers, built once per client: the hot path copies nothing. */
export function jsonHeadersOf(config: ExecutorConfig): Readonly<Record<string, string>> {
  return Object.freeze({ ...config.headers, 'content-type': 'application/json' });
}

/** One call, resolved once for all its attempts. Ids, query and options are checked before any I/O. */
export function resolveExchange(
  config: ExecutorConfig,
  jsonHeaders: Readonly<Record<string, string>>,
  route: Route,
  request: AnyCallRequest,
  given: RequestOptions | SendOptions | undefined,
  record: CallRecord,
): Exchange {
  const path = fillPath(route, request.params);
  const options = checkCallOptions(given, request.body !== undefined);
  const { body } = request;
  const { signal } = options;
  return {
    route,
    path,
    url: config.apiBase + path + toQueryString(request.query),
    headers: headersOf(config, jsonHeaders, body, options.headers),
    body,
    timeout: options.timeout ?? config.timeout,
    signal,
    onUploadProgress: options.onUploadProgress,
    record,
    maxRetries: options.maxRetries ?? config.maxRetries,
    lanes: config.lanes && request.lanes,
  };
}

/** The request's headers: the client's, the call's own (checked), and the body's content type. */
function headersOf(
  config: ExecutorConfig,
  jsonHeaders: Readonly<Record<string, string>>,
  body: RequestBody | undefined,
  extra: Readonly<Record<string, string>> | undefined,
) {
  const base = config.headers;
  if (!extra) return body?.kind === 'json' ? jsonHeaders : base;
  const headers: Record<string, string> = { ...base, ...extra };
  if (body?.kind === 'json') headers['content-type'] = 'application/json';
  // The key always comes from the client, whatever the per-call headers said.
  headers['x-api-key'] = base['x-api-key'] as string;
  return headers;
}
