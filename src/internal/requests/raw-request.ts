import { type Issue, ValidationError } from '../../errors.js';
import type { JsonValue } from '../../types/json.js';
import type { ListQuery } from '../../types/query.js';
import type { HttpMethod, RawRequest, ResultSchema } from '../../types/request.js';
import { checkKnownKeys, type KnownKeys } from '../values/checks.js';
import { describeValue } from '../values/describe-value.js';
import { readFields } from '../values/input.js';
import { type Route, scopeOfPath } from './route.js';

const METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const RAW_REQUEST: KnownKeys<RawRequest> = { method: true, path: true, query: true, body: true, schema: true };

/** A `client.request()` once checked: its route, and what to send and validate. */
export interface CheckedRawRequest<T> {
  readonly route: Route;
  readonly query: ListQuery | undefined;
  /** The JSON text of the body, made once (every attempt sends this). */
  readonly bodyText: string | undefined;
  readonly schema: ResultSchema<T> | undefined;
}

/**
 * A path the SDK may call with the key: below `/api/v1` of the base URL, and nowhere else. It is
 * refused when it could leave that prefix or that origin once a URL parser or a server normalises
 * it: an absolute or protocol-relative URL, backslashes, `.`/`..` segments (encoded or not),
 * control characters, or a query or fragment (pass `query` instead).
 */
function pathProblem(path: unknown, apiBase: string): { message: string; hint?: string } | undefined {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    return {
      message: `must be a path below /api/v1 starting with '/', e.g. '/sender-numbers/1', got ${describeValue(path)}`,
    };
  }
  if (path.startsWith('//') || /[\\?#\p{Cc}\s]/u.test(path)) {
    return {
      message: 'must not contain //, backslashes, white space, control characters, ? or #',
      hint: 'pass query parameters as query',
    };
  }
  if (path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    return { message: "must not contain '.' or '..' segments: it could leave /api/v1" };
  }
  const base = new URL(apiBase);
  const url = new URL(apiBase + path);
  if (url.origin !== base.origin || !url.pathname.startsWith(`${base.pathname}/`)) {
    return { message: `resolves outside ${base.pathname} of the base URL's origin` };
  }
  return undefined;
}

/** Checks `client.request()`'s argument before any I/O, and prepares its route. */
export function checkRawRequest<T>(given: unknown, apiBase: string): CheckedRawRequest<T> {
  const what = 'Invalid request';
  const fields = readFields(given, what, "{ method: 'GET', path: '/sender-numbers/1' }");
  const issues: Issue[] = [];
  checkKnownKeys(fields, RAW_REQUEST, ' of client.request', issues);
  const { method, path, query, body, schema } = fields;
  if (!METHODS.includes(method as HttpMethod)) {
    issues.push({ path: 'method', message: `must be one of ${METHODS.join(', ')}, got ${describeValue(method)}` });
  }
  const badPath = pathProblem(path, apiBase);
  if (badPath) issues.push({ path: 'path', ...badPath });
  if (schema !== undefined && typeof (schema as { safeParse?: unknown } | null)?.safeParse !== 'function') {
    issues.push({ path: 'schema', message: 'must have a safeParse method (a Zod schema fits)' });
  }
  let bodyText: string | undefined;
  if (body !== undefined) {
    if (method === 'GET' || method === 'HEAD') issues.push({ path: 'body', message: `is not sent with ${method}` });
    else bodyText = jsonText(body, issues);
  }
  if (issues.length > 0) throw new ValidationError(what, issues);
  const verb = method as HttpMethod;
  const filled = path as string;
  return {
    route: {
      name: 'request',
      method: verb,
      label: `${verb} ${filled}`,
      // For traces and metrics, never the filled path: numeric segments become `{id}`, so that
      // `/sender-numbers/1` and `/sender-numbers/2` are one series.
      template: filled.replace(/\/\d+(?=\/|$)/g, '/{id}'),
      idempotent: verb === 'GET' || verb === 'HEAD',
      literals: [filled],
      params: [],
      ids: {},
      scope: scopeOfPath(verb, filled),
    },
    query: query as ListQuery | undefined,
    bodyText,
    schema: schema as ResultSchema<T> | undefined,
  };
}

function jsonText(body: unknown, issues: Issue[]): string | undefined {
  try {
    const text = JSON.stringify(body as JsonValue);
    if (typeof text === 'string') return text;
    issues.push({ path: 'body', message: `must be a JSON value, got ${describeValue(body)}` });
  } catch (error) {
    issues.push({
      path: 'body',
      message: `cannot be sent as JSON: ${error instanceof Error ? error.message : describeValue(error)}`,
    });
  }
  return undefined;
}
