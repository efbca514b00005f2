/**
 * The Laravel conventions the sandbox follows where the specification says "not shown": JSON
 * error bodies, validation messages, date format and the resource paginator envelope.
 */

/** Field name to messages, in the order the rules ran. */
export type FieldErrors = Record<string, string[]>;

/**
 * Which exception of the framework an error response stands for. Laravel renders these as JSON
 * only for a client that asks for JSON; `negotiate.ts` renders them for the others.
 */
export type FrameworkError = 'authentication' | 'validation' | 'http';
const FRAMEWORK_ERRORS = new WeakMap<Response, FrameworkError>();

/** The framework exception a response stands for, if it is one. */
export function frameworkError(response: Response): FrameworkError | undefined {
  return FRAMEWORK_ERRORS.get(response);
}

/**
 * JSON as PHP's `json_encode` writes it by default, which Laravel's JsonResponse uses: `/` as
 * `\/` and every non-ASCII character as `\uXXXX`; `pretty` is JSON_PRETTY_PRINT (4 spaces).
 */
export function phpJson(body: unknown, pretty = false): string {
  return JSON.stringify(body, null, pretty ? 4 : undefined).replace(/[/\u0080-\uffff]/g, (c) =>
    c === '/' ? '\\/' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A JSON response, with extra headers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}, pretty = false): Response {
  return new Response(phpJson(body, pretty), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-cache, private', ...headers },
  });
}

/**
 * `{ message }`: the API's error shape (spec section 7), for an HttpException (`abort(403)`, a
 * failed route-model binding, 405, 429...): Laravel pretty-prints those bodies.
 */
export function errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  const response = json(status, { message }, headers, true);
  FRAMEWORK_ERRORS.set(response, 'http');
  return response;
}

/** Laravel's 401 for any key problem: missing, unknown, another tenant's, expired or revoked. */
export function unauthenticated(): Response {
  const response = json(401, { message: 'Unauthenticated.' });
  FRAMEWORK_ERRORS.set(response, 'authentication');
  return response;
}

/**
 * The 422 body Laravel (10 and later) builds from a failed validator: the first message, then
 * "(and N more error[s])" counting every other message, and every field's messages.
 */
export function validationResponse(errors: FieldErrors): Response {
  const all = Object.values(errors).flat();
  const more = all.length - 1;
  const first = all[0] ?? 'The given data was invalid.';
  const message = more > 0 ? `${first} (and ${more} more ${more === 1 ? 'error' : 'errors'})` : first;
  const response = json(422, { message, errors });
  FRAMEWORK_ERRORS.set(response, 'validation');
  return response;
}

/** `sender_phone` -> `sender phone`: how Laravel names an attribute in its messages. */
function attribute(field: string): string {
  return field.replaceAll('_', ' ');
}

/** Laravel's standard messages for the rules the sandbox uses. */
export const rules = {
  required: (field: string) => `The ${attribute(field)} field is required.`,
  requiredIf: (field: string, other: string, value: string) =>
    `The ${attribute(field)} field is required when ${attribute(other)} is ${value}.`,
  requiredWithout: (field: string, other: string) =>
    `The ${attribute(field)} field is required when ${attribute(other)} is not present.`,
  prohibits: (field: string, other: string) =>
    `The ${attribute(field)} field prohibits ${attribute(other)} from being present.`,
  prohibitedIf: (field: string, other: string, value: string) =>
    `The ${attribute(field)} field is prohibited when ${attribute(other)} is ${value}.`,
  string: (field: string) => `The ${attribute(field)} field must be a string.`,
  integer: (field: string) => `The ${attribute(field)} field must be an integer.`,
  min: (field: string, min: number) => `The ${attribute(field)} field must be at least ${min}.`,
  maxString: (field: string, max: number) =>
    `The ${attribute(field)} field must not be greater than ${max} characters.`,
  maxFile: (field: string, kilobytes: number) =>
    `The ${attribute(field)} field must not be greater than ${kilobytes} kilobytes.`,
  file: (field: string) => `The ${attribute(field)} field must be a file.`,
  mimes: (field: string, types: string) => `The ${attribute(field)} field must be a file of type: ${types}.`,
  format: (field: string) => `The ${attribute(field)} field format is invalid.`,
  selected: (field: string) => `The selected ${attribute(field)} is invalid.`,
  // The service's own text rules (see text-rules.ts): Laravel has no standard message for them.
  noNul: (field: string) => `The ${attribute(field)} field must not contain a NUL character.`,
  utf8: (field: string) => `The ${attribute(field)} field must be valid UTF-8 text.`,
} as const;

/**
 * A timestamp as Laravel serialises dates: ISO 8601 in UTC with microseconds,
 * e.g. `2026-11-21T10:00:00.000000Z`.
 */
export function laravelDate(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** What `paginate()` needs to build Laravel's resource paginator envelope. */
export interface PageRequest {
  /** The list URL without a query string (Laravel's `meta.path`). */
  path: string;
  page: number;
  perPage: number;
  /** Extra query kept in the links, as `withQueryString()` does (e.g. a `per_page` the caller gave). */
  keep: Record<string, string>;
}

/**
 * Laravel's `ResourceCollection` envelope over a paginator:
 * `{ data, links: { first, last, prev, next }, meta: { current_page, from, last_page, links, path, per_page, to, total } }`.
 */
export function paginate<T>(items: readonly T[], request: PageRequest): Record<string, unknown> {
  const { path, page, perPage, keep } = request;
  const total = items.length;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const data = items.slice((page - 1) * perPage, page * perPage);
  const url = (n: number) => `${path}?${new URLSearchParams({ ...keep, page: String(n) })}`;
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  const to = from === null ? null : from + data.length - 1;
  const prev = page > 1 ? url(page - 1) : null;
  const next = page < lastPage ? url(page + 1) : null;
  const numbered = Array.from({ length: lastPage }, (_, i) => ({
    url: url(i + 1),
    label: String(i + 1),
    active: i + 1 === page,
  }));
  return {
    data,
    links: { first: url(1), last: url(lastPage), prev, next },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      links: [
        { url: prev, label: '&laquo; Previous', active: false },
        ...numbered,
        { url: next, label: 'Next &raquo;', active: false },
      ],
      path,
      per_page: perPage,
      to,
      total,
    },
  };
}

/**
 * A query parameter as a positive integer, Laravel-style: anything unusable falls back to
 * `fallback` (Laravel's paginator treats `page=abc` as page 1).
 */
export function positiveInt(value: string | null, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === null || !/^\d+$/.test(value)) return fallback;
  const n = Number(value);
  return n >= 1 ? Math.min(n, max) : fallback;
}
