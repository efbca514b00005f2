import { causeSentence } from './internal/cause-sentence.js';
import type { MessageLog } from './types/message-log.js';
import type { SentParams } from './types/send.js';
/** A response header map: lower-case names, one string per header. */
export type ResponseHeaders = Readonly<Record<string, string>>;

/** One problem found in a value the SDK checked. `path` names the field, e.g. `media` or `data.delivery_status`. */
export interface Issue {
  readonly path: string;
  readonly message: string;
}

/**
 * Base class of every error the SDK throws, so one `instanceof MessagingError` catches them all.
 *
 * @example
 * ```ts
 * try { await client.messages.send(params) }
 * catch (err) { if (err instanceof MessagingError) log.warn(err.message) }
 * ```
 */
export class MessagingError extends Error {
  override get name(): string {
    return this.constructor.name;
  }
}

/**
 * Raised when the caller gave the SDK something it cannot use: a bad option at construction,
 * an invalid send parameter, an id that is not an integer >= 1. Always thrown before any network I/O.
 */
export class ValidationError extends MessagingError {
  /** Every problem found, each with the field it concerns. */
  readonly issues: readonly Issue[];

  /**
   * @param what what was invalid, e.g. `Invalid send parameters`
   * @param issues every problem found
   * @param options `cause`: the error behind it (a caller's throwing getter, a failed media stream)
   */
  /**
   * True when the request may still have reached the service although the SDK refused what came
   * back (a `fetch` or `dispatcher` that followed a redirect after a POST): a send then reports an
   * unknown outcome, with this error as `cause`, not a plain refusal.
   * @default false
   */
  readonly mayHaveBeenSent: boolean;

  constructor(what: string, issues: readonly Issue[], options?: ErrorOptions & { readonly mayHaveBeenSent?: boolean }) {
    super(`${what}:\n${issues.map((i) => `  - ${i.path || '(value)'}: ${i.message}`).join('\n')}`, options);
    this.issues = issues;
    this.mayHaveBeenSent = options?.mayHaveBeenSent === true;
  }

  /**
   * The first field named by the issues, e.g. `to_phone`.
   *
   * @example
   * ```ts
   * if (error instanceof ValidationError) form.showError(error.field, error.issues[0]?.message)
   * ```
   */
  get field(): string | undefined {
    return this.issues[0]?.path;
  }
}

/**
 * Raised when a 2xx response body does not match the shape the API specification gives.
 * `issues` says what did not match and `body` holds the raw parsed body, so nothing is lost.
 */
export class ResponseValidationError extends MessagingError {
  readonly issues: readonly Issue[];
  readonly body: unknown;
  readonly status: number;

  constructor(endpoint: string, status: number, body: unknown, issues: readonly Issue[]) {
    super(
      `The ${endpoint} response (HTTP ${status}) does not match the API specification:\n` +
        issues.map((i) => `  - ${i.path || '(body)'}: ${i.message}`).join('\n') +
        '\nThe raw body is on error.body. If the service changed, please report it.',
    );
    this.issues = issues;
    this.body = body;
    this.status = status;
  }
}

/** What a failed schema check reports: Zod's error, reduced to what the SDK reads. */
export interface SchemaIssues {
  readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[];
}

/** Converts Zod issues into the SDK's plain `Issue` list. */
export function issuesFromZod(error: SchemaIssues, prefix = ''): Issue[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.'),
    message: issue.message,
  }));
}

/** Options of `APIConnectionError`: the cause, and whether the request certainly never left. */
export interface ConnectionErrorOptions extends ErrorOptions {
  /** @default false */
  readonly neverSent?: boolean | undefined;
}

/**
 * Raised when the service could not be reached, or the connection failed before a full response arrived.
 *
 * @example
 * ```ts
 * if (error instanceof APIConnectionError && error.neverSent) console.log('safe to send again')
 * ```
 */
export class APIConnectionError extends MessagingError {
  /**
   * True when the connection was never established (refused, DNS failure, connect timeout), so not
   * one byte of the request reached the service; false when it may have.
   * @default false
   */
  readonly neverSent: boolean;

  constructor(message = 'Could not reach the Tenant Messaging API.', options?: ConnectionErrorOptions) {
    super(message, options);
    this.neverSent = options?.neverSent === true;
  }
}

/** Raised when a request did not complete within its `timeout` (connection, headers and body together). */
export class APITimeoutError extends APIConnectionError {
  constructor(timeoutMs: number, options?: ConnectionErrorOptions) {
    super(
      `The request did not complete within ${timeoutMs} ms. Raise the \`timeout\` option if the service is slow, or check connectivity to the base URL.`,
      options,
    );
  }
}

/**
 * Raised when the deadline of `waitForDelivery` passed before the wanted `delivery_status` was seen.
 * `lastLog` holds the last MessageLog read, if any read succeeded.
 *
 * @example
 * ```ts
 * try {
 *   await client.waitForDelivery(log.id, { timeout: 60_000 })
 * } catch (error) {
 *   if (error instanceof DeliveryTimeoutError) console.log(error.lastLog?.delivery_status) // 'sent'
 * }
 * ```
 */
export class DeliveryTimeoutError<Log = MessageLog> extends MessagingError {
  readonly messageLogId: number;
  readonly lastLog: Log | undefined;

  constructor(messageLogId: number, timeoutMs: number, until: string, lastLog: Log | undefined, cause?: unknown) {
    const seen = lastLog as { delivery_status?: unknown } | undefined;
    const last = seen
      ? `The last delivery_status seen was '${String(seen.delivery_status)}'` +
        (seen.delivery_status === 'unknown'
          ? ' (the underlying chat message is missing or in a state the service does not recognise).'
          : '.')
      : 'No read of the message log succeeded.';
    super(
      `Message log ${messageLogId} did not reach '${until}' within ${timeoutMs} ms. ${last} Delivery is confirmed only when the recipient app reports receipt; poll again later or raise \`timeout\`.`,
      cause === undefined ? undefined : { cause },
    );
    this.messageLogId = messageLogId;
    this.lastLog = lastLog;
  }
}

/**
 * Raised when a request that changes something may have reached the service but no answer says
 * what happened (a timeout, a reset while waiting for the answer, a 5xx or 3xx): it may or may
 * not have been processed. The SDK never retries such a request. `client.request()` raises it for
 * methods other than GET and HEAD; `messages.send` raises its subclass `SendOutcomeUnknownError`.
 * `cause` holds the underlying error.
 *
 * @example
 * ```ts
 * catch (err) {
 *   if (err instanceof OutcomeUnknownError) await reconcile() // look before doing it again
 * }
 * ```
 */
export class OutcomeUnknownError extends MessagingError {
  constructor(message: string, cause: Error) {
    super(message, { cause });
  }
}

/**
 * Raised by `messages.send` when the request may have reached the service but no answer says
 * what happened: a timeout, a connection reset while waiting for the answer, a 5xx from the
 * service or a proxy. The message may or may not have been sent. The API has no idempotency key,
 * so the SDK never retries such a send; check with `messages.list()` before sending again.
 * `cause` holds the underlying error.
 *
 * @example
 * ```ts
 * catch (err) {
 *   if (err instanceof SendOutcomeUnknownError) {
 *     const recent = await client.messages.list()
 *     // look for the message among recent.data before sending it again
 *   }
 * }
 * ```
 */
export class SendOutcomeUnknownError extends OutcomeUnknownError {
  /**
   * The send's parameters as checked (media described by name, size and type, never its bytes),
   * for `messages.reconcile(error.params, { since: error.startedAt })`.
   */
  readonly params: SentParams | undefined;
  /** When the send started: the earliest its log's `sent_at` can be. */
  readonly startedAt: Date;

  constructor(cause: Error, sent?: { readonly params: SentParams; readonly startedAt: Date }) {
    super(
      `The message may have been sent: the request may have reached the service, but no answer says what happened. ${causeSentence(cause.message)}\n` +
        'The SDK did not retry, because the API has no idempotency key and a retry could send it twice. ' +
        'Before sending again, reconcile: await client.messages.reconcile(error.params, { since: error.startedAt }).',
      cause,
    );
    this.params = sent?.params;
    this.startedAt = sent?.startedAt ?? new Date();
  }
}
