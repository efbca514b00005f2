import type { Issue } from '../../errors.js';
import { describeValue } from '../values/describe-value.js';
import { isPlainObject } from '../values/is-plain-object.js';

/** An HTTP field name (RFC 9110 section 5.6.2, a "token"). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * An HTTP field value undici (and fetch) will send: visible ASCII, spaces and tabs, or obs-text
 * bytes. Anything else, line breaks above all, would smuggle a second header or fail inside the
 * transport, after the call had started.
 */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Headers that frame the body or manage the connection, which the SDK and undici own: undici
 * refuses most of them from callers (`UND_ERR_INVALID_ARG`, or `UND_ERR_NOT_SUPPORTED` for
 * `expect`), and a wrong `content-length` would break the request mid-flight. Caught here,
 * before the call starts, instead.
 */
const MANAGED_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'content-length',
  'expect',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Checks a caller's header record (`defaultHeaders`, or a call's `headers`), pushing one issue
 * per bad entry. Returns the headers with lower-cased names. Only own keys are read, and the
 * same keys that were checked are the ones copied: an inherited property never reaches the wire.
 */
export function checkHeaders(headers: unknown, path: string, issues: Issue[]): Record<string, string> {
  const checked: Record<string, string> = {};
  if (headers === undefined) return checked;
  if (!isPlainObject(headers) || headers instanceof Headers) {
    issues.push({ path, message: "must be a plain object of header names to strings, e.g. { 'x-trace-id': 'abc' }" });
    return checked;
  }
  let entries: [string, unknown][];
  try {
    entries = Object.entries(headers);
  } catch (error) {
    issues.push({ path, message: `could not be read: reading it threw ${describeValue(error)}` });
    return checked;
  }
  for (const [name, value] of entries) {
    if (MANAGED_HEADERS.has(name.toLowerCase())) {
      issues.push({
        path: `${path}.${name}`,
        message: 'is managed by the HTTP client for each request (framing and connection reuse); remove it',
      });
    } else if (!HEADER_NAME.test(name)) {
      issues.push({
        path: `${path}.${name}`,
        message: "is not a valid header name (letters, digits and !#$%&'*+.^_`|~- only)",
      });
    } else if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      issues.push({
        path: `${path}.${name}`,
        message: `must be a string of Latin-1 characters without line breaks (encode other text, e.g. with encodeURIComponent), got ${typeof value === 'string' ? JSON.stringify(value.slice(0, 60)) : describeValue(value)}`,
      });
    } else
      Object.defineProperty(checked, name.toLowerCase(), {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return checked;
}
