import { ValidationError } from '../../errors.js';
import type { QueryValue } from '../../types/query.js';
import { readFields } from '../values/input.js';

/** Builds `?a=1&b=2` (or '') from a plain object, keeping the caller's parameter names as they are. */
export function toQueryString(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return '';
  const fields = readFields(query, 'Invalid query', '{ page: 2 }');
  const params = new URLSearchParams();
  for (const key in fields) {
    const value = fields[key];
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
