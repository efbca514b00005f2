/**
 * The typed error of a non-2xx answer: its class by status, and one readable line of message from
 * whatever body came (the API's JSON `message`, a proxy's HTML page, anything), in linear time.
 */
import {
  APIError,
  AuthenticationError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from './api-error.js';
import type { Scope } from './endpoints.js';
import type { ResponseHeaders } from './errors.js';
import { ownValue } from './internal/is-plain-object.js';
import { parseJson } from './internal/json.js';

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

/**
 * Builds the right `APIError` subclass from a non-2xx response. The body may be JSON with a
 * `message` (the API's error shape) or anything else (an HTML page from a proxy); either way the
 * error's message is one readable line. Any body, of any shape or size, gives an `APIError`, in
 * time linear in its length: only the bounded JSON parse (`parseJson`) reads the whole text.
 */
export function errorFromResponse(
  status: number,
  text: string,
  headers: ResponseHeaders,
  requiredScope?: Scope,
): APIError {
  let body: unknown = text;
  try {
    // A body whose first KiB is blank is no error object (the API's are one line of JSON): it is
    // kept as text without two more scans of it (the JSON check and JSON.parse, each to its end).
    body = text && /\S/.test(text.slice(0, BLANK_PREFIX)) ? parseJson(text) : text;
  } catch {
    // Not JSON: keep the raw text as the body.
  }
  const serverMessage = ownValue(body, 'message');
  const label = `HTTP ${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ''}`;
  const message =
    typeof serverMessage === 'string' && serverMessage.trim() !== ''
      ? capped(serverMessage)
      : `${label}${describeBody(text, headers)}`;
  return errorOfStatus(status, message, body, headers, requiredScope);
}

/** How much leading whitespace an error body may have and still be read as JSON. */
const BLANK_PREFIX = 1024;

/** A service's message as the error's message: at most `MAX_MESSAGE` characters (the whole body stays on `body`). */
const MAX_MESSAGE = 1_000;
function capped(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}… (${message.length} characters)` : message;
}

/** The error class of `status`, made; a 403 carries the scope its endpoint needs. */
function errorOfStatus(
  status: number,
  message: string,
  body: unknown,
  headers: ResponseHeaders,
  requiredScope: Scope | undefined,
): APIError {
  if (status === 403) return new PermissionDeniedError(status, message, body, headers, requiredScope);
  const Class = CLASSES[status] ?? (status >= 500 ? InternalServerError : APIError);
  return new Class(status, message, body, headers);
}

/** The classes of the statuses the API names (a 403 is made above, with its scope; any 5xx is an InternalServerError). */
const CLASSES: Readonly<Record<number, typeof APIError>> = {
  401: AuthenticationError,
  404: NotFoundError,
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
function describeBody(text: string, headers: ResponseHeaders): string {
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
