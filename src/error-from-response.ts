/**
 * The typed error of a non-2xx answer: its class by status, its code by status and request, and
 * a message in the SDK's words whatever body came (the API's JSON `message`, a proxy's HTML
 * page, anything), in linear time.
 */
import {
  APIError,
  type APIErrorDetails,
  AuthenticationError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from './api-error.js';
import { type Answer, apiErrorMessage } from './api-error-message.js';
import type { Scope } from './endpoints.js';
import type { ErrorCode } from './error-codes.js';
import type { ResponseHeaders } from './errors.js';
import { parseJson } from './internal/requests/json.js';
import { type EndpointAt, endpointAt } from './internal/requests/route.js';
import { ownValue } from './internal/values/is-plain-object.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The request an error answered, as the executor knows it: for the error's code, message and fields. */
export interface AnsweredRequest {
  readonly method: string;
  /** The path below `/api/v1`, filled: `/messages/42`. */
  readonly path: string;
  /** The request's URL without its query string. */
  readonly url: string;
  /** The tenant URL the client was given. */
  readonly baseUrl: string;
  /** The scope the endpoint needs, when the endpoint table knows it. */
  readonly scope: Scope | undefined;
}

/**
 * Builds the right `APIError` subclass from a non-2xx response, with its code and a message in
 * the SDK's words (`apiErrorMessage`); the body's own `message` stays on `serverMessage`. The
 * body may be JSON with a `message` (the API's error shape) or anything else (an HTML page from
 * a proxy). Any body, of any shape or size, gives an `APIError`, in time linear in its length:
 * only the bounded JSON parse (`parseJson`) reads the whole text.
 */
export function errorFromResponse(
  status: number,
  text: string,
  headers: ResponseHeaders,
  request: AnsweredRequest,
): APIError {
  let body: unknown = text;
  try {
    // A body whose first KiB is blank is no error object (the API's are one line of JSON): it is
    // kept as text without two more scans of it (the JSON check and JSON.parse, each to its end).
    body = text && /\S/.test(text.slice(0, BLANK_PREFIX)) ? parseJson(text) : text;
  } catch {
    // Not JSON: keep the raw text as the body.
  }
  const said = ownValue(body, 'message');
  const serverMessage = typeof said === 'string' && said.trim() !== '' ? capped(oneLine(said)) : undefined;
  const label = `HTTP ${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ''}`;
  const answer: Answer = { status, label, serverMessage, bodyHint: describeBody(text, headers), headers };
  const at = endpointAt(request.method, request.path);
  const found = status === 404 ? notFoundKind(at, serverMessage) : undefined;
  const details: APIErrorDetails = {
    code: found?.code,
    url: request.url,
    baseUrl: request.baseUrl,
    messageLogId: found?.code === 'not_found.message_log' ? at?.ids['messageLog'] : undefined,
    requiredScope: status === 403 ? request.scope : undefined,
  };
  const error = errorOfStatus(status, '', body, headers, details);
  error.message = apiErrorMessage(error, answer, request);
  if (found?.unsure) {
    const route = { ...details, code: 'not_found.route' as const, messageLogId: undefined };
    UNSURE.set(error, () => {
      const wrongUrl = new NotFoundError(status, '', body, headers, route);
      wrongUrl.message = apiErrorMessage(wrongUrl, answer, request);
      return wrongUrl;
    });
  }
  return error;
}

/**
 * 404s whose code the answer alone does not settle: a missing log or a wrong base URL, when the
 * body says neither (Laravel 8 answers an unknown route with an empty message). The executor
 * settles them with one read of `/me` (`settleNotFound`).
 */
const UNSURE = new WeakMap<APIError, () => NotFoundError>();

/**
 * For a 404 that may be a wrong base URL rather than a missing log: the same answer as a
 * `not_found.route`, made when the executor finds it so. Undefined for any other error.
 */
export function asWrongUrl(error: unknown): (() => NotFoundError) | undefined {
  return error instanceof NotFoundError ? UNSURE.get(error) : undefined;
}

/**
 * What a 404 is: off a path with no id, no record can be missing (a wrong URL); on a path with an
 * id, the body decides when it names a model (Laravel's route-model binding) or a route, and an
 * answer that names neither is settled by the executor. Off the table it is a resource.
 */
function notFoundKind(
  at: EndpointAt | undefined,
  serverMessage: string | undefined,
): { code: ErrorCode; unsure: boolean } {
  const saysRoute = serverMessage !== undefined && ROUTE_MISSING.test(serverMessage);
  if (at === undefined) return { code: saysRoute ? 'not_found.route' : 'not_found.resource', unsure: false };
  if (at.ids['messageLog'] === undefined || saysRoute) return { code: 'not_found.route', unsure: false };
  const saysModel = serverMessage !== undefined && MODEL_MISSING.test(serverMessage);
  return { code: 'not_found.message_log', unsure: !saysModel };
}

/** Laravel's words for an unknown route (`The route t/acme/api/v1/nope could not be found.`). */
const ROUTE_MISSING = /^The route .* could not be found\.?$/;
/** Laravel's words for a record its route-model binding did not find. */
const MODEL_MISSING = /^No query results for model\b/;

/** How much leading whitespace an error body may have and still be read as JSON. */
const BLANK_PREFIX = 1024;

/** A service's message kept on `serverMessage`: at most `MAX_MESSAGE` characters (the whole body stays on `body`). */
const MAX_MESSAGE = 1_000;
function capped(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}… (${message.length} characters)` : message;
}

/** A server's text as one line: control characters (new lines included) as spaces, so a log line stays one. */
function oneLine(text: string): string {
  return text.replace(/\p{Cc}+/gu, ' ');
}

/** The error class of `status`, made; a 403 carries the scope its endpoint needs. */
function errorOfStatus(
  status: number,
  message: string,
  body: unknown,
  headers: ResponseHeaders,
  details: APIErrorDetails,
): APIError {
  if (status === 403) return new PermissionDeniedError(status, message, body, headers, details);
  if (status === 404) return new NotFoundError(status, message, body, headers, details);
  const Class = CLASSES[status] ?? (status >= 500 ? InternalServerError : APIError);
  return new Class(status, message, body, headers, details);
}

/** The classes of the statuses the API names (403 and 404 are made above, with their fields; any 5xx is an InternalServerError). */
const CLASSES: Readonly<Record<number, typeof APIError>> = {
  401: AuthenticationError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/**
 * How much of a body the message hint reads. Proxy error pages put their `<title>` near the top;
 * reading a bounded prefix keeps the work per error constant whatever the body holds.
 */
const HINT_PREFIX = 4096;
/** Longest title or snippet quoted in a message. */
const HINT_LENGTH = 120;

/** A short hint about a body that carried no usable `message`: its HTML title, or its first characters. */
export function describeBody(text: string, headers: ResponseHeaders): string {
  const head = text.slice(0, HINT_PREFIX);
  const truncated = text.length > head.length;
  const snippet = collapse(head);
  if (!snippet && !truncated) return ' (empty body)';
  const title = htmlTitle(head);
  if (title) return ` (an HTML page titled "${title}", probably from a proxy in front of the API)`;
  const type = headers['content-type']?.slice(0, 100).split(';')[0]?.trim() || 'unknown content type';
  if (!snippet) return ` (${type} body of ${text.length} characters, the first ${HINT_PREFIX} blank)`;
  const more = truncated || snippet.length > HINT_LENGTH;
  return ` (${type} body: ${JSON.stringify(snippet.slice(0, HINT_LENGTH))}${more ? '…' : ''})`;
}

/**
 * The text of the first `<title>` element in `head`, whitespace collapsed and shortened. A
 * fixed-length pattern and `indexOf` scans, not `/<title[^>]*>([^<]*)<\/title>/`: that regex
 * backtracks over the rest of the text from every unclosed `<title`, so a large page of them
 * took seconds.
 */
function htmlTitle(head: string): string | undefined {
  const open = head.search(/<title[\s>]/i);
  if (open < 0) return undefined;
  const start = head.indexOf('>', open) + 1;
  const end = start > 0 ? head.indexOf('<', start) : -1;
  if (end < 0 || head.slice(end, end + 8).toLowerCase() !== '</title>') return undefined;
  return collapse(head.slice(start, end)).slice(0, HINT_LENGTH) || undefined;
}

/** Whitespace runs as one space, trimmed. */
function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
