/** True for a JSON-style object: not null, not an array. The one check every reader of a body uses. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value[key]` when `value` is a JSON object that has `key` itself (never through its prototype). */
export function ownValue(value: unknown, key: string): unknown {
  return isPlainObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}
