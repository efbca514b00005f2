import { ValidationError } from '../errors.js';
import { isPlainObject } from './is-plain-object.js';

/** A query parameter value: scalars pass as text, arrays repeat the key, null and undefined are left out. */
export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];

/** Builds `?a=1&b=2` (or '') from a plain object, keeping the caller's parameter names as they are. */
export function toQueryString(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return '';
  if (!isPlainObject(query)) {
    throw new ValidationError('Invalid query', [
      {
        path: 'query',
        message: `must be an object of parameters such as { page: 2 }, got ${query === null ? 'null' : typeof query}`,
      },
    ]);
  }
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    const items: readonly unknown[] = Array.isArray(value) ? value : [value];
    for (const item of items) {
      // An object would be sent as "[object Object]": say so before any request instead.
      if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
        throw new ValidationError('Invalid query', [
          {
            path: `query.${key}`,
            message: `must be a string, number or boolean (or an array of them), got ${typeof item}`,
          },
        ]);
      }
      params.append(key, String(item));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
