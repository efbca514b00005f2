import { type EndpointName, endpointLabel } from '../../endpoints.js';
import { issuesFromZod, ResponseValidationError, type SchemaIssues } from '../../errors.js';
import { isPlainObject } from '../../internal/values/is-plain-object.js';
import type { JsonObject } from '../../types/json.js';
import type { ApiResult } from './response.js';

/** A schema as the SDK uses it: anything with Zod's `safeParse` (the schemas are zod/mini ones). */
export interface Schema<T> {
  safeParse(data: unknown): { success: true; data: T } | { success: false; error: SchemaIssues };
}

/**
 * Checks the `data` member of a `{ data: ... }` body against a schema (the envelope itself is
 * checked by hand: one object less to build on every call).
 */
export function parseData<T>(schema: Schema<T>, result: ApiResult, endpoint: EndpointName): T {
  const { body } = result;
  if (!isPlainObject(body) || !('data' in body)) {
    throw new ResponseValidationError(endpointLabel(endpoint), result.status, body, [
      { path: 'data', message: 'expected an object with a data member: { data: ... }' },
    ]);
  }
  const parsed = schema.safeParse(body['data']);
  if (!parsed.success) {
    throw new ResponseValidationError(
      endpointLabel(endpoint),
      result.status,
      body,
      issuesFromZod(parsed.error, 'data'),
    );
  }
  return parsed.data;
}

/**
 * For endpoints whose response shape the specification does not show: the `data` member when the
 * body has an object there, else the body itself. Anything but an object is a mismatch.
 */
export function openObject(result: ApiResult, endpoint: EndpointName): JsonObject {
  const { body } = result;
  if (isPlainObject(body)) {
    const data = body['data'];
    return (isPlainObject(data) ? data : body) as JsonObject;
  }
  throw new ResponseValidationError(endpointLabel(endpoint), result.status, body, [
    { path: '', message: `expected a JSON object, got ${Array.isArray(body) ? 'an array' : typeof body}` },
  ]);
}

/** For list endpoints whose shape is not shown: a bare array, or the array under `data`. */
export function openList(result: ApiResult, endpoint: EndpointName): JsonObject[] {
  const { body } = result;
  const list = Array.isArray(body) ? body : isPlainObject(body) ? body['data'] : undefined;
  if (Array.isArray(list) && list.every(isPlainObject)) return list as JsonObject[];
  throw new ResponseValidationError(endpointLabel(endpoint), result.status, body, [
    { path: Array.isArray(body) ? '' : 'data', message: 'expected an array of JSON objects, or { data: [...] }' },
  ]);
}
