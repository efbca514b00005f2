import { MessagingError } from './messaging-error.js';

export { MessagingError, type MessagingErrorOptions } from './messaging-error.js';

/** A response header map: lower-case names, one string per header. */
export type ResponseHeaders = Readonly<Record<string, string>>;

/**
 * One problem found in a value the SDK checked. `path` names the field, e.g. `media` or
 * `data.delivery_status`; `message` says what is wrong with it, and `hint`, when there is one,
 * what to change in the calling code (an option to pass, a property to read).
 */
export interface Issue {
  readonly path: string;
  readonly message: string;
  /**
   * The remedy in the code's own terms, e.g. `pass allowInsecureHttp: true for a network you
   * trust`; the message says what is wrong without it (the bins give their own remedy instead).
   * @default undefined
   */
  readonly hint?: string | undefined;
}

/** Options of a `ValidationError`. */
export interface ValidationErrorOptions extends ErrorOptions {
  /**
   * `validation.options` for a constructor's or factory's options, `validation.params` for a call's arguments.
   * @default 'validation.params'
   */
  readonly code?: 'validation.options' | 'validation.params' | undefined;
  /** @default false */
  readonly mayHaveBeenSent?: boolean | undefined;
}

/**
 * Raised when the caller gave the SDK something it cannot use: a bad option at construction
 * (`code` `validation.options`), an invalid send parameter or an id that is not an integer >= 1
 * (`validation.params`). Always thrown before any network I/O.
 *
 * @example
 * ```ts
 * if (error instanceof ValidationError) console.error(error.code, error.issues)
 * ```
 */
export class ValidationError extends MessagingError {
  /** Every problem found, each with the field it concerns. */
  readonly issues: readonly Issue[];

  /**
   * True when the request may still have reached the service although the SDK refused what came
   * back (a `fetch` or `dispatcher` that followed a redirect after a POST): a send then reports an
   * unknown outcome, with this error as `cause`, not a plain refusal.
   * @default false
   */
  readonly mayHaveBeenSent: boolean;

  /**
   * @param what what was invalid, e.g. `Invalid send parameters`
   * @param issues every problem found
   * @param options `cause`: the error behind it (a caller's throwing getter, a failed media stream); `code`
   */
  constructor(what: string, issues: readonly Issue[], options?: ValidationErrorOptions) {
    super(
      `${what}:\n${issues.map((i) => `  - ${i.path || '(value)'}: ${i.message}${i.hint ? `; ${i.hint}` : ''}`).join('\n')}`,
      {
        cause: options?.cause,
        code: options?.code ?? 'validation.params',
      },
    );
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
 * Raised when a 2xx response body does not match the shape the API specification gives
 * (`code` `response.invalid`). `issues` says what did not match and `body` holds the raw parsed
 * body, so nothing is lost.
 *
 * @example
 * ```ts
 * if (error instanceof ResponseValidationError) report(error.endpoint, error.issues, error.body)
 * ```
 */
export class ResponseValidationError extends MessagingError {
  readonly issues: readonly Issue[];
  readonly body: unknown;
  readonly status: number;
  /** The endpoint whose answer it was, e.g. `GET /messages/{messageLog}`. */
  readonly endpoint: string;

  constructor(endpoint: string, status: number, body: unknown, issues: readonly Issue[]) {
    super(
      `The ${endpoint} response (HTTP ${status}) does not match the API specification:\n` +
        issues.map((i) => `  - ${i.path || '(body)'}: ${i.message}`).join('\n') +
        '\nThe raw body is on error.body. If the service changed, please report it.',
      { code: 'response.invalid' },
    );
    this.issues = issues;
    this.body = body;
    this.status = status;
    this.endpoint = endpoint;
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

export {
  APIConnectionError,
  APITimeoutError,
  type ConnectionErrorCode,
  type ConnectionErrorOptions,
  type TimeoutErrorOptions,
} from './connection-errors.js';
export { DeliveryTimeoutError, OutcomeUnknownError, SendOutcomeUnknownError } from './outcome-errors.js';
export { MissingPeerError } from './peer-error.js';
