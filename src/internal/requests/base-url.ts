import { API_PREFIX } from '../../endpoints.js';

/**
 * Normalises a tenant base URL to `<origin><prefix>/api/v1`, appending the version path once.
 * Returns a problem description instead when the URL cannot be used.
 */
export function resolveApiBase(raw: string): { url: string; origin: string } | { problem: string; hint?: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return {
      problem: `'${raw}' is not a URL. Give the full tenant URL with its scheme, e.g. https://acme.example.com`,
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { problem: `the scheme must be https: or http:, got '${url.protocol}'` };
  }
  if (url.search || url.hash) {
    return { problem: 'it must not contain a query string or a fragment' };
  }
  if (url.username || url.password) {
    return { problem: 'it must not contain credentials', hint: 'pass the API key as apiKey' };
  }
  const path = url.pathname.replace(/\/+$/, '');
  const prefix = path.endsWith(API_PREFIX) ? path.slice(0, -API_PREFIX.length) : path;
  return { url: `${url.origin}${prefix}${API_PREFIX}`, origin: url.origin };
}
