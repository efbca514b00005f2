/** A query parameter value: scalars pass as text, arrays repeat the key, null and undefined are left out. */
export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];

/** Builds `?a=1&b=2` (or '') from a plain object, keeping the caller's parameter names as they are. */
export function toQueryString(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, String(item));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
