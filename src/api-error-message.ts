/**
 * The message of an `APIError`, in the SDK's words, from its code and fields: what happened, and
 * what to change in the calling code. The service's own words are never the message: a
 * framework's internals (`No query results for model [App\Models\MessageLog] 7`) mean nothing to
 * a reader, and the body's `message` stays on `serverMessage` for whoever wants it.
 */
import type { APIError, NotFoundError, PermissionDeniedError, UnprocessableEntityError } from './api-error.js';
import type { ResponseHeaders } from './errors.js';

/** What a message may quote of the answer. */
export interface Answer {
  readonly status: number;
  /** `HTTP 502 Bad Gateway`. */
  readonly label: string;
  /** The body's `message`, one line, capped; undefined when blank or absent. */
  readonly serverMessage: string | undefined;
  /** A description of a body without a usable message, e.g. ` (an HTML page titled "502 Bad Gateway"…)`. */
  readonly bodyHint: string;
  readonly headers: ResponseHeaders;
}

/** The request as the message names it. */
export interface MessageRequest {
  readonly method: string;
  readonly url: string;
  readonly baseUrl: string;
}

/** The tenant URL's form, for a message about a wrong one. */
export const TENANT_URL_EXAMPLE = 'https://messaging.example.com/t/acme';

/**
 * The message of `error` (its code and fields set), for `request` and its `answer`.
 *
 * @example apiErrorMessage(error, answer, request) // 'Message log 7 does not exist in this tenant’s workspace (HTTP 404)…'
 */
export function apiErrorMessage(error: APIError, answer: Answer, request: MessageRequest): string {
  const { method, url, baseUrl } = request;
  switch (error.code) {
    case 'auth.invalid_key':
      return `The service refused the API key (${answer.label}): it is missing, mistyped, expired or revoked, and the service does not say which. Check that apiKey holds this tenant's key, whole (no quotes or spaces around it), and that the key has not expired or been revoked in the dashboard.`;
    case 'scope.missing': {
      const scope = (error as PermissionDeniedError).requiredScope;
      return scope
        ? `The API key lacks the \`${scope}\` scope that ${method} ${pathOf(url, baseUrl)} needs (${answer.label}): use a key that has it.`
        : `The API key lacks a scope that ${method} ${pathOf(url, baseUrl)} needs (${answer.label}): use a key that has it.`;
    }
    case 'not_found.route':
      return `No such endpoint: ${method} ${url} answered ${answer.label}. Check baseUrl: it should be the tenant URL from the dashboard, e.g. ${TENANT_URL_EXAMPLE}, without /api/v1 (given: ${baseUrl}).`;
    case 'not_found.message_log':
      return `Message log ${String((error as NotFoundError).messageLogId)} does not exist in this tenant's workspace (${answer.label}): the id is not one of this tenant's. Use the data.id that messages.send returned.`;
    case 'not_found.resource':
      return `${method} ${url} answered ${answer.label}: the service has no such resource.`;
    case 'validation.rejected':
      return `The service rejected the request's fields (${answer.label})${fieldsOf(error as UnprocessableEntityError)}. Each field's reasons are on error.errors.`;
    case 'rate_limit.exceeded':
      return `The tenant's rate limit was reached (${answer.label})${waitOf(error)}. Requests are paced from the rate-limit headers; lower the rate or wait.`;
    case 'server.error':
      return `The service, or a proxy in front of it, failed: ${answer.label}${said(answer)}.${error.requestId ? ` Its request id is ${error.requestId}.` : ''}`;
    default:
      return `The service answered ${method} ${url} with ${answer.label}${said(answer)}.`;
  }
}

/** The path below the API prefix, as the endpoint table writes it: `/messages/42`. */
function pathOf(url: string, baseUrl: string): string {
  const at = url.indexOf('/api/v1', baseUrl.length - 1);
  return at === -1 ? url : url.slice(at + '/api/v1'.length);
}

/** ` (the service said: "…")`, or the description of a body without a message. */
function said(answer: Answer): string {
  return answer.serverMessage === undefined
    ? answer.bodyHint
    : ` (the service said: ${JSON.stringify(answer.serverMessage)})`;
}

/** `: to_phone (The to phone field is required.), type (…)`: the first reason of each field, at most five. */
function fieldsOf(error: UnprocessableEntityError): string {
  const fields = Object.keys(error.errors);
  if (fields.length === 0) return '';
  const named = fields.slice(0, 5).map((field) => `${quoted(field)} (${quoted(error.errors[field]?.[0] ?? '')})`);
  return `: ${named.join(', ')}${fields.length > 5 ? ` and ${fields.length - 5} more` : ''}`;
}

/** A server's word in a message: one line, at most 200 characters. */
function quoted(text: string): string {
  const line = text.replace(/\p{Cc}+/gu, ' ');
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** `: it asks to wait 59 s`, when it said. */
function waitOf(error: APIError): string {
  return error.retryAfter === undefined ? '' : `: it asks to wait ${Math.ceil(error.retryAfter / 1000)} s`;
}
