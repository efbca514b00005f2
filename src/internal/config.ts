import type { PollSettings, WaitForDeliveryOptions } from '../core/poll.js';
import { type Issue, ValidationError } from '../errors.js';
import { type ClientOptions, DEFAULTS, ENV, type RequestOptions } from '../options.js';
import { VERSION } from '../version.js';
import { resolveApiBase } from './base-url.js';
import { isPlainObject } from './is-plain-object.js';
import { createLog, LOG_LEVELS, type Log, type LogLevel } from './log.js';

const KNOWN_OPTIONS = new Set([
  'baseUrl',
  'apiKey',
  'timeout',
  'maxRetries',
  'defaultHeaders',
  'dispatcher',
  'fetch',
  'allowInsecureHttp',
  'dangerouslyAllowBrowser',
  'logger',
  'logLevel',
  'polling',
]);

/** What the client needs from its options once they are checked and defaulted. */
export interface ClientConfig {
  readonly apiBase: string;
  readonly origin: string;
  /** Every request's headers, built once: lower-case names, the key included. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly log: Log;
  readonly polling: { maxConcurrent: number; maxPerSecond: number };
}

/** Hosts where plain http never leaves the machine. */
function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/** True in a browser page or worker: where an API key would be readable by anyone. */
function inBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown };
  return (typeof g.window === 'object' && typeof g.document === 'object') || typeof g.importScripts === 'function';
}

/** An HTTP field name (RFC 9110 section 5.6.2, a "token"). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * An HTTP field value undici (and fetch) will send: visible ASCII, spaces and tabs, or obs-text
 * bytes. Anything else, line breaks above all, would smuggle a second header or fail inside the
 * transport, after the call had started.
 */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

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
 * Pushes an issue for every key of `options` that is not in `known` (a misspelt option would
 * otherwise be ignored silently), suggesting the option it differs from only in case.
 * `which` follows "is not an option", e.g. ` of waitForDelivery (...)`.
 */
function checkKnownKeys(options: object, known: ReadonlySet<string>, which: string, issues: Issue[]): void {
  for (const key of Object.keys(options)) {
    if (known.has(key)) continue;
    const hint = [...known].find((name) => name.toLowerCase() === key.toLowerCase());
    issues.push({ path: key, message: `is not an option${which}${hint ? `; did you mean ${hint}?` : ''}` });
  }
}

/**
 * Checks a caller's header record (`defaultHeaders`, or a call's `headers`), pushing one issue
 * per bad entry. Returns the headers with lower-cased names.
 */
function checkHeaders(headers: unknown, path: string, issues: Issue[]): Record<string, string> {
  const checked: Record<string, string> = {};
  if (headers === undefined) return checked;
  if (!isPlainObject(headers) || headers instanceof Headers) {
    issues.push({ path, message: "must be a plain object of header names to strings, e.g. { 'x-trace-id': 'abc' }" });
    return checked;
  }
  for (const [name, value] of Object.entries(headers)) {
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
        message: `must be a string of Latin-1 characters without line breaks (encode other text, e.g. with encodeURIComponent), got ${typeof value === 'string' ? JSON.stringify(value) : typeof value}`,
      });
    } else checked[name.toLowerCase()] = value;
  }
  return checked;
}

/** An API key is printable ASCII without spaces: anything else was mangled on its way here. */
const API_KEY = /^[\x21-\x7e]+$/;

/**
 * Checks every client option at construction, reads the environment for the missing ones, and
 * reports all problems at once, each with its fix.
 */
export function resolveClientConfig(options: ClientOptions, env: NodeJS.ProcessEnv): ClientConfig {
  const issues: Issue[] = [];
  if (typeof options !== 'object' || options === null) {
    throw new ValidationError('Invalid MessagingClient options', [{ path: '', message: 'must be an object' }]);
  }
  if (inBrowser() && options.dangerouslyAllowBrowser !== true) {
    throw new ValidationError('MessagingClient refuses to run in a browser', [
      {
        path: 'dangerouslyAllowBrowser',
        message:
          'API keys must stay on your server (spec section 5): anyone who opens this page could read the key. ' +
          'Call the API from your backend instead, or pass dangerouslyAllowBrowser: true if you accept the risk.',
      },
    ]);
  }
  checkKnownKeys(options, KNOWN_OPTIONS, '', issues);

  const rawBase = options.baseUrl ?? env[ENV.baseUrl];
  let apiBase = '';
  let origin = '';
  if (typeof rawBase !== 'string' || rawBase.trim() === '') {
    issues.push({
      path: 'baseUrl',
      message: `is required: pass it, or set ${ENV.baseUrl} (e.g. https://acme.example.com)`,
    });
  } else {
    const resolved = resolveApiBase(rawBase);
    if ('problem' in resolved) issues.push({ path: 'baseUrl', message: resolved.problem });
    else {
      ({ url: apiBase, origin } = resolved);
      const { protocol, hostname } = new URL(origin);
      if (protocol === 'http:' && !isLoopback(hostname) && options.allowInsecureHttp !== true) {
        issues.push({
          path: 'baseUrl',
          message: `uses plain http:// to ${hostname}: the API key would cross the network unencrypted. Use https://, or pass allowInsecureHttp: true for a network you trust`,
        });
      }
    }
  }

  const apiKey = options.apiKey ?? env[ENV.apiKey];
  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    issues.push({ path: 'apiKey', message: `is required: pass it, or set ${ENV.apiKey}` });
  } else if (!API_KEY.test(apiKey)) {
    issues.push({
      path: 'apiKey',
      message:
        'contains white space, a line break or a character outside printable ASCII (a “smart” quote?); copy the key again from your dashboard',
    });
  }

  const timeout = options.timeout ?? DEFAULTS.timeout;
  if (!isTimeout(timeout)) {
    issues.push({
      path: 'timeout',
      message: `must be a positive number of ms up to ${MAX_TIMER_MS}, got ${String(timeout)}`,
    });
  }
  const maxRetries = options.maxRetries ?? DEFAULTS.maxRetries;
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 10) {
    issues.push({ path: 'maxRetries', message: `must be an integer from 0 to 10, got ${String(maxRetries)}` });
  }

  const headers = checkHeaders(options.defaultHeaders, 'defaultHeaders', issues);
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    issues.push({ path: 'fetch', message: 'must be a fetch-shaped function' });
  }
  if (options.fetch !== undefined && options.dispatcher !== undefined) {
    issues.push({
      path: 'dispatcher',
      message: 'is used by the undici transport only; pass dispatcher or fetch, not both',
    });
  }

  const logLevel = options.logLevel ?? (env[ENV.logLevel] || undefined) ?? 'warn';
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    issues.push({
      path: 'logLevel',
      message: `must be one of ${LOG_LEVELS.join(', ')} (or ${ENV.logLevel}), got ${String(logLevel)}`,
    });
  }
  const logger = options.logger ?? console;
  if (
    typeof logger !== 'object' ||
    logger === null ||
    !['debug', 'info', 'warn', 'error'].every(
      (m) => typeof (logger as unknown as Record<string, unknown>)[m] === 'function',
    )
  ) {
    issues.push({ path: 'logger', message: 'must have debug, info, warn and error methods (console fits)' });
  }

  const { maxConcurrent = DEFAULTS.pollMaxConcurrent, maxPerSecond = DEFAULTS.pollMaxPerSecond } =
    options.polling ?? {};
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
    issues.push({ path: 'polling.maxConcurrent', message: `must be an integer >= 1, got ${String(maxConcurrent)}` });
  }
  if (!isPositiveNumber(maxPerSecond)) {
    issues.push({ path: 'polling.maxPerSecond', message: `must be a positive number, got ${String(maxPerSecond)}` });
  }

  if (issues.length > 0) throw new ValidationError('Invalid MessagingClient options', issues);
  return {
    polling: { maxConcurrent, maxPerSecond },
    log: createLog(logger, logLevel as LogLevel),
    apiBase,
    origin,
    headers: Object.freeze({
      ...headers,
      accept: 'application/json',
      'user-agent': `tenant-messaging/${VERSION} node/${globalThis.process?.versions?.node ?? 'unknown'}`,
      'x-api-key': apiKey as string,
    }),
    timeout,
    maxRetries,
  };
}

/**
 * Checks the per-call options a caller gave (each is optional). Cheap on the hot path: an empty
 * options object costs four property reads.
 */
export function checkRequestOptions(options: RequestOptions): void {
  const { timeout, maxRetries, headers, signal } = options;
  if (timeout === undefined && maxRetries === undefined && headers === undefined && signal === undefined) return;
  const issues: Issue[] = [];
  if (timeout !== undefined && !isTimeout(timeout)) {
    issues.push({
      path: 'timeout',
      message: `must be a positive number of ms up to ${MAX_TIMER_MS}, got ${String(timeout)}`,
    });
  }
  if (maxRetries !== undefined && (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 10)) {
    issues.push({ path: 'maxRetries', message: `must be an integer from 0 to 10, got ${String(maxRetries)}` });
  }
  if (signal !== undefined && !(signal instanceof AbortSignal))
    issues.push({ path: 'signal', message: 'must be an AbortSignal' });
  checkHeaders(headers, 'headers', issues);
  if (issues.length > 0) throw new ValidationError('Invalid request options', issues);
}

/** The longest delay a Node timer can hold; a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

function isTimeout(value: unknown): value is number {
  return isPositiveNumber(value) && value <= MAX_TIMER_MS;
}

/** The options `waitForDelivery` reads: a misspelt one (`intervall`) would be ignored silently. */
const POLL_OPTIONS: ReadonlySet<string> = new Set(['interval', 'timeout', 'until', 'signal', 'onUpdate']);

/** Applies the defaults of `waitForDelivery` and checks what the caller gave. */
export function resolvePollSettings(options: WaitForDeliveryOptions): PollSettings {
  if (typeof options !== 'object' || options === null) {
    throw new ValidationError('Invalid waitForDelivery options', [
      {
        path: '',
        message: `must be an object such as { interval: 1000, timeout: 60000 }, got ${options === null ? 'null' : typeof options}`,
      },
    ]);
  }
  const {
    interval = DEFAULTS.pollInterval,
    timeout = DEFAULTS.pollTimeout,
    until = 'delivered',
    signal,
    onUpdate,
  } = options;
  const issues: Issue[] = [];
  checkKnownKeys(options, POLL_OPTIONS, ` of waitForDelivery (${[...POLL_OPTIONS].join(', ')})`, issues);
  if (!isTimeout(interval))
    issues.push({ path: 'interval', message: `must be a positive number of ms, got ${String(interval)}` });
  if (!isTimeout(timeout))
    issues.push({ path: 'timeout', message: `must be a positive number of ms, got ${String(timeout)}` });
  if (until !== 'delivered' && until !== 'read')
    issues.push({ path: 'until', message: `must be 'delivered' or 'read', got ${String(until)}` });
  if (onUpdate !== undefined && typeof onUpdate !== 'function')
    issues.push({ path: 'onUpdate', message: 'must be a function' });
  if (signal !== undefined && !(signal instanceof AbortSignal))
    issues.push({ path: 'signal', message: 'must be an AbortSignal' });
  if (issues.length > 0) throw new ValidationError('Invalid waitForDelivery options', issues);
  return { interval, timeout, until, signal, onUpdate };
}

function isPositiveNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
