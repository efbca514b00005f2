import { ENDPOINTS, type EndpointName, type IdDescription, type Scope } from '../../endpoints.js';
import { ValidationError } from '../../errors.js';
import type { HttpMethod } from '../../types/request.js';
import { describeValue } from '../values/describe-value.js';

/** One row of the endpoint table, prepared once for the executor. */
export interface Route {
  /** The table's name, or `request` for `client.request()`. */
  readonly name: string;
  readonly method: HttpMethod;
  /** `GET /messages/{messageLog}`: the label of errors and logs (never the filled path). */
  readonly label: string;
  /** The path template, e.g. `/messages/{messageLog}`. */
  readonly template: string;
  /** Whether repeating the request is harmless: every GET. */
  readonly idempotent: boolean;
  /** The template split at its parameters: `['/messages/', '']` around `['messageLog']`. */
  readonly literals: readonly string[];
  readonly params: readonly string[];
  readonly ids: Readonly<Record<string, IdDescription>>;
  /** The scope the endpoint needs: null when any active key may call it, undefined when unknown (a raw path off the table). */
  readonly scope: Scope | null | undefined;
}

function compile(name: EndpointName): Route {
  const row = ENDPOINTS[name];
  const ids: Readonly<Record<string, IdDescription>> = 'ids' in row ? row.ids : {};
  const parts = row.path.split(/\{(\w+)\}/);
  const literals = parts.filter((_, index) => index % 2 === 0);
  const params = parts.filter((_, index) => index % 2 === 1);
  for (const param of params) {
    if (!(param in ids)) throw new Error(`ENDPOINTS.${name}: the path parameter {${param}} needs an entry in ids`);
  }
  return {
    name,
    method: row.method,
    label: `${row.method} ${row.path}`,
    template: row.path,
    idempotent: row.method === 'GET',
    literals,
    params,
    ids,
    scope: row.scope,
  };
}

const ROUTES = Object.fromEntries(
  (Object.keys(ENDPOINTS) as EndpointName[]).map((name) => [name, compile(name)]),
) as Record<EndpointName, Route>;

/** The prepared row of an endpoint. */
export function routeOf(name: EndpointName): Route {
  return ROUTES[name];
}

/**
 * Throws `ValidationError` unless `value` is an id: a safe integer >= 1. The message names the
 * parameter, the resource and where a valid id comes from, and hints at the usual mistakes.
 */
export function checkId(value: unknown, param: string, id: IdDescription): asserts value is number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return;
  let hint = '';
  if (typeof value === 'bigint' || (typeof value === 'string' && /^\d+$/.test(value)))
    hint = ' (convert it with Number(id))';
  throw new ValidationError(`Invalid ${id.resource} id`, [
    { path: param, message: `must be an integer >= 1 (${id.source}), got ${describeValue(value)}${hint}` },
  ]);
}

/** Fills a route's path template, checking every id parameter first. */
export function fillPath(route: Route, params: Readonly<Record<string, unknown>> | undefined): string {
  const { literals, params: names } = route;
  if (names.length === 0) return literals[0] as string;
  let path = literals[0] as string;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const value = params?.[name];
    checkId(value, name, route.ids[name] as IdDescription);
    path += value + (literals[i + 1] as string);
  }
  return path;
}

/**
 * Checks an endpoint's path ids without building anything: for calls that check up front and
 * request later (`waitForDelivery`).
 */
export function checkPathParams(name: EndpointName, params: Readonly<Record<string, unknown>>): void {
  fillPath(routeOf(name), params);
}

/** A path with its parameters (`{messageLog}`, `{id}`) or ids (`42`) as one shape: `/messages/{}`. */
const shapeOf = (path: string) => path.replace(/\/(?:\{\w+\}|\d+)(?=\/|$)/g, '/{}');

/**
 * The scope of the table's endpoint that `method` and `path` (below `/api/v1`) reach:
 * `client.request()`'s, so that its 403 names the scope as the methods' do. Undefined when no
 * endpoint of the table matches.
 */
export function scopeOfPath(method: string, path: string): Scope | null | undefined {
  const wanted = shapeOf(path);
  // A HEAD is answered as the GET of its path (Laravel's routes), scope included.
  const asked = method === 'HEAD' ? 'GET' : method;
  const row = Object.values(ENDPOINTS).find((row) => row.method === asked && shapeOf(row.path) === wanted);
  return row?.scope;
}

/** The table's endpoint a request reached, and the ids its path holds: `{ name: 'getMessage', ids: { messageLog: 42 } }`. */
export interface EndpointAt {
  readonly name: EndpointName;
  readonly ids: Readonly<Record<string, number>>;
}

/**
 * The endpoint of the table that `method` and `path` (below `/api/v1`) reach, with its ids;
 * undefined off the table. A 404's code depends on it: a path with no id cannot name a missing
 * record, so its 404 is a wrong URL.
 */
export function endpointAt(method: string, path: string): EndpointAt | undefined {
  const wanted = shapeOf(path);
  const asked = method === 'HEAD' ? 'GET' : method;
  const name = (Object.keys(ENDPOINTS) as EndpointName[]).find(
    (key) => ENDPOINTS[key].method === asked && shapeOf(ENDPOINTS[key].path) === wanted,
  );
  if (name === undefined) return undefined;
  const given = path.split('/');
  const ids: Record<string, number> = {};
  ENDPOINTS[name].path.split('/').forEach((segment, index) => {
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (param !== undefined) ids[param] = Number(given[index]);
  });
  return { name, ids };
}
