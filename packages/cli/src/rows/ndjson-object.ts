/** An NDJSON line as the object it must be: valid JSON, an object, and no field given twice. */

import { fieldOf, type RowField } from './row-fields.js';
import { RowFileError } from './row-file-error.js';

/** An NDJSON line as the object it must be, with no field given twice (two keys, or a key and its alias). */
export function ndjsonObject(path: string, text: string, line: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    value = error;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Error) {
    throw new RowFileError(
      `--file: ${path} line ${line} is not a JSON object${value instanceof Error ? ` (${value.message})` : ''}. Nothing was sent.`,
      'Each line of an NDJSON file is one object: {"to":"+15557654321","text":"Hello"}',
    );
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).filter((key) => fieldOf(key) !== undefined);
  // JSON.parse keeps the last of two equal keys without a word: count them in the text itself.
  const twice = keys.filter((key) => (text.match(keyPattern(key))?.length ?? 0) > 1);
  const byField = new Map<RowField, string[]>();
  for (const key of keys)
    byField.set(fieldOf(key) as RowField, [...(byField.get(fieldOf(key) as RowField) ?? []), key]);
  const aliased = [...byField].filter(([, named]) => named.length > 1);
  if (twice.length > 0 || aliased.length > 0) {
    const said = [
      ...twice.map((key) => `the key "${key}" twice`),
      ...aliased.map(([field, named]) => `${named.map((key) => `"${key}"`).join(' and ')}, which are both "${field}"`),
    ];
    throw new RowFileError(
      `--file: ${path} line ${line} has ${said.join(', and ')}. Nothing was sent.`,
      'Give each field once per line: send-many does not guess which one is meant.',
    );
  }
  return object;
}

const keyPatterns = new Map<string, RegExp>();

/** Where `"key":` stands as a key in a JSON text (escaped quotes inside strings do not match). */
function keyPattern(key: string): RegExp {
  let pattern = keyPatterns.get(key);
  if (!pattern) {
    pattern = new RegExp(`[{,]\\s*${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`, 'g');
    keyPatterns.set(key, pattern);
  }
  return pattern;
}
