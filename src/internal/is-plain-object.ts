/** True for a JSON-style object: not null, not an array. The one check every reader of a body uses. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
