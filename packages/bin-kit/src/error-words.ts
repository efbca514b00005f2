/**
 * An SDK error's message for a person or a model, written from its `code` and fields where the
 * SDK's own message speaks to code (an option to raise, a property to read, a call to make);
 * every other code's message is already in plain words, and is shown as the SDK wrote it.
 */
import type {
  APIError,
  APITimeoutError,
  DeliveryTimeoutError,
  MessagingError,
  MissingPeerError,
  NotFoundError,
  ResponseValidationError,
  UnprocessableEntityError,
  ValidationError,
} from 'tenant-messaging';

/**
 * `error`'s message in plain words: no option, property or call of the SDK in it.
 *
 * @example
 * ```ts
 * plainMessage(error) // 'No such endpoint: GET https://acme.example.com/api/v1/me answered HTTP 404 Not Found.'
 * ```
 */
export function plainMessage(error: MessagingError): string {
  switch (error.code) {
    case 'validation.options':
    case 'validation.params':
      return plainIssues(error as ValidationError);
    case 'delivery.timeout':
      return deliveryTimeout(error as DeliveryTimeoutError);
    case 'network.timeout':
      return timeout(error as APITimeoutError);
    case 'send.outcome_unknown':
    case 'outcome.unknown': {
      const cause = error.cause;
      const why = isMessagingError(cause) ? ` ${plainMessage(cause)}` : '';
      const what = error.code === 'send.outcome_unknown' ? 'The message may have been sent' : 'It may have been done';
      return `${what}: the request may have reached the service, but no answer says what happened.${why} It was not retried: a retry could do it twice.`;
    }
    case 'response.invalid': {
      const { endpoint, status, issues } = error as ResponseValidationError;
      const lines = issues.map((issue) => `\n  - ${issue.path || '(body)'}: ${issue.message}`).join('');
      // The endpoint as the table writes it, its path ids as ids (`{messageLog}` is a name in code).
      const label = endpoint.replace(/\{\w+\}/g, '{id}');
      return `The ${label} answer (HTTP ${status}) does not match the API specification:${lines}`;
    }
    case 'auth.invalid_key':
      return `The service refused the API key (${statusOf(error)}).`;
    case 'not_found.route':
      return `No such endpoint: ${(error as APIError).url ?? 'the request'} answered ${statusOf(error)}.`;
    case 'not_found.message_log':
      return `Message log ${String((error as NotFoundError).messageLogId)} does not exist in this tenant’s workspace (${statusOf(error)}).`;
    case 'validation.rejected':
      return `The service rejected the request’s fields (${statusOf(error)})${fields(error as UnprocessableEntityError)}`;
    case 'peer.missing':
      return `This needs ${(error as MissingPeerError).peer}, an optional package that is not installed.`;
    case 'http.redirect': {
      const location = (error as APIError).headers['location']?.slice(0, 200).replace(/\p{Cc}/gu, '?');
      return `The service answered with a redirect (${statusOf(error)})${location ? ` to ${location}` : ''}, which is never followed: the key goes only to the tenant URL.`;
    }
    default:
      return error.message;
  }
}

/**
 * A ValidationError as a heading and its issues, each field named by `nameOf` when it knows it
 * (a bin names a field by the flag that sets it), without the issues' hints: they name the SDK's
 * options, which a person at a bin or a model cannot set.
 *
 * @example
 * ```ts
 * plainIssues(error, (path) => (path === 'baseUrl' ? '--base-url' : undefined)) // 'Invalid tenant URL or API key:\n  - --base-url: …'
 * ```
 */
export function plainIssues(
  error: ValidationError,
  nameOf: (path: string) => string | undefined = () => undefined,
): string {
  const lines = error.issues.map((issue) => {
    const name = nameOf(issue.path) ?? PLAIN_NAMES[issue.path.split('.')[0] ?? ''] ?? (issue.path || '(value)');
    return `  - ${name}: ${issue.message}`;
  });
  return `${heading(error)}:\n${lines.join('\n')}`;
}

/** The client's credentials and the endpoint table's path ids in words, where a bin does not name them by what set them. */
const PLAIN_NAMES: Readonly<Record<string, string>> = {
  baseUrl: 'the tenant URL',
  apiKey: 'the API key',
  messageLog: 'the log id',
};

/** Fields only the client's credentials set, and only mediaFromPath's arguments. */
const CREDENTIALS = new Set(['baseUrl', 'apiKey']);
const MEDIA_FILE = new Set(['path', 'filename', 'contentType']);

/** What was invalid, by the error's code and the fields it names; else as the SDK's message begins. */
function heading(error: ValidationError): string {
  const fields = error.issues.map((issue) => issue.path.split('.')[0] ?? '');
  if (error.code === 'validation.options')
    return fields.every((field) => CREDENTIALS.has(field)) ? 'Invalid tenant URL or API key' : 'Invalid settings';
  if (fields.length > 0 && fields.every((field) => MEDIA_FILE.has(field))) return 'Invalid media file';
  const end = error.message.indexOf(':\n');
  return end === -1 ? error.message : error.message.slice(0, end);
}

function isMessagingError(value: unknown): value is MessagingError {
  return value instanceof Error && typeof (value as { code?: unknown }).code === 'string';
}

/** `HTTP 401`, the status of an API error. */
function statusOf(error: MessagingError): string {
  return `HTTP ${(error as APIError).status}`;
}

function deliveryTimeout(error: DeliveryTimeoutError): string {
  const seen = error.lastLog?.delivery_status;
  const last =
    seen === undefined
      ? 'No read of the message log succeeded.'
      : `The last delivery_status seen was '${seen}'${seen === 'unknown' ? ' (the underlying chat message is missing or in a state the service does not recognise)' : ''}.`;
  return `Message log ${error.messageLogId} did not reach '${error.until}' within ${ms(error.timeoutMs)}. ${last} Delivery is confirmed only when the recipient app reports receipt.`;
}

function timeout(error: APITimeoutError): string {
  return error.attempts > 1
    ? `The request did not complete: ${error.attempts} attempts over ${ms(error.elapsedMs)}, the last cut off after ${ms(error.timeoutMs)}.`
    : `The request did not complete within ${ms(error.timeoutMs)}.`;
}

/** `: to_phone (The to phone field is required.)`: the first reason of each field, at most five. */
function fields(error: UnprocessableEntityError): string {
  const names = Object.keys(error.errors);
  const named = names.slice(0, 5).map((name) => `${line(name)} (${line(error.errors[name]?.[0] ?? '')})`);
  return names.length === 0 ? '.' : `: ${named.join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}.`;
}

/** A server's words in a line of ours: no control characters, at most 200 characters. */
function line(text: string): string {
  const one = text.replace(/\p{Cc}+/gu, ' ');
  return one.length > 200 ? `${one.slice(0, 200)}…` : one;
}

/** `60,000 ms`. */
function ms(value: number): string {
  return `${Math.round(value).toLocaleString('en-US')} ms`;
}
