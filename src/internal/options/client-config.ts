import { type Issue, ValidationError } from '../../errors.js';
import { DEFAULTS, ENV } from '../../options.js';
import type { LogLevel } from '../../types/logger.js';
import type { ClientOptions } from '../../types/options.js';
import { VERSION } from '../../version.js';
import { resolveApiBase } from '../requests/base-url.js';
import { inBrowser, isLoopback } from '../requests/environment.js';
import { checkHeaders } from '../requests/headers.js';
import { checkProxy, type ProxyConfig } from '../requests/proxy.js';
import { createLog, LOG_LEVELS, type Log } from '../runtime/log.js';
import { runtimeTag } from '../runtime/runtime-tag.js';
import { check, checkKnownKeys, type KnownKeys } from '../values/checks.js';
import { describeValue } from '../values/describe-value.js';
import { readFields } from '../values/input.js';

const CLIENT_OPTIONS: KnownKeys<ClientOptions> = {
  baseUrl: true,
  apiKey: true,
  timeout: true,
  maxRetries: true,
  defaultHeaders: true,
  dispatcher: true,
  fetch: true,
  allowInsecureHttp: true,
  dangerouslyAllowBrowser: true,
  logger: true,
  logLevel: true,
  polling: true,
  proxy: true,
  rateLimit: true,
};

const RATE_LIMIT_OPTIONS: KnownKeys<NonNullable<ClientOptions['rateLimit']>> = {
  requestsPerSecond: true,
  adaptive: true,
  perSender: true,
  perRecipient: true,
};

const POLLING_OPTIONS: KnownKeys<NonNullable<ClientOptions['polling']>> = { maxConcurrent: true, maxPerSecond: true };

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
  /** The checked `rateLimit` option, defaults applied. */
  readonly rateLimit: {
    readonly requestsPerSecond: number | undefined;
    readonly adaptive: boolean;
    /** Sends per sliding second per sender, when given. */
    readonly perSender: number | undefined;
    /** Ms between two sends to one recipient, when given. */
    readonly perRecipient: number | undefined;
  };
  /** The checked `proxy` option (with `'env'`, the variables as read now), for the undici transport. */
  readonly proxy: ProxyConfig | undefined;
  /** The options as read (an own-property copy of the caller's object). */
  readonly options: ClientOptions;
}

/** An API key is printable ASCII without spaces: anything else was mangled on its way here. */
const API_KEY = /^[\x21-\x7e]+$/;

const WHAT = 'Invalid MessagingClient options';

/**
 * Checks every client option at construction, reads the environment for the missing ones, and
 * reports all problems at once, each with its fix.
 */
export function resolveClientConfig(given: unknown, env: NodeJS.ProcessEnv): ClientConfig {
  const options = readFields(given, WHAT, "{ baseUrl: 'https://acme.example.com', apiKey }") as ClientOptions;
  if (inBrowser() && options.dangerouslyAllowBrowser !== true) {
    throw new ValidationError(
      'MessagingClient refuses to run in a browser',
      [
        {
          path: 'dangerouslyAllowBrowser',
          message:
            'API keys must stay on your server (spec section 5): anyone who opens this page could read the key. ' +
            'Call the API from your backend instead, or pass dangerouslyAllowBrowser: true if you accept the risk.',
        },
      ],
      { code: 'validation.options' },
    );
  }
  const issues: Issue[] = [];
  checkKnownKeys(options, CLIENT_OPTIONS, '', issues);
  const { apiBase, origin } = checkBaseUrl(options, env, issues);
  const apiKey = checkApiKey(options.apiKey ?? env[ENV.apiKey], issues);

  const { timeout = DEFAULTS.timeout, maxRetries = DEFAULTS.maxRetries } = options;
  check.duration(timeout, 'timeout', issues);
  check.maxRetries(maxRetries, 'maxRetries', issues);
  const headers = checkHeaders(options.defaultHeaders, 'defaultHeaders', issues);
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    issues.push({ path: 'fetch', message: `must be a fetch-shaped function, got ${describeValue(options.fetch)}` });
  }
  if (options.fetch !== undefined && options.dispatcher !== undefined) {
    issues.push({
      path: 'dispatcher',
      message: 'is used by the undici transport only; pass dispatcher or fetch, not both',
    });
  }
  const proxy = checkProxy(
    options.proxy,
    env,
    { baseProtocol: URL.parse(origin)?.protocol ?? '', allowed: options.allowInsecureHttp === true },
    issues,
  );
  for (const other of ['dispatcher', 'fetch'] as const) {
    if (options.proxy !== undefined && options[other] !== undefined) {
      issues.push({
        path: 'proxy',
        message: `cannot be combined with ${other}: pass one or the other (${other === 'dispatcher' ? 'give your dispatcher its own ProxyAgent' : 'the fetch function chooses its own route'})`,
      });
    }
  }

  const logLevel = options.logLevel ?? (env[ENV.logLevel] || undefined) ?? 'warn';
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    issues.push({
      path: 'logLevel',
      message: `must be one of ${LOG_LEVELS.join(', ')} (or ${ENV.logLevel}), got ${describeValue(logLevel)}`,
    });
  }
  const logger = options.logger ?? console;
  const methods = ['debug', 'info', 'warn', 'error'] as const;
  if (typeof logger !== 'object' || logger === null || !methods.every((m) => typeof logger[m] === 'function')) {
    issues.push({ path: 'logger', message: 'must have debug, info, warn and error methods (console fits)' });
  }

  const polling = options.polling === undefined ? {} : readFields(options.polling, WHAT, '{ maxConcurrent: 16 }');
  checkKnownKeys(polling, POLLING_OPTIONS, ' of polling', issues);
  const { maxConcurrent = DEFAULTS.pollMaxConcurrent, maxPerSecond = DEFAULTS.pollMaxPerSecond } = polling;
  check.positiveInteger(maxConcurrent, 'polling.maxConcurrent', issues);
  check.positiveNumber(maxPerSecond, 'polling.maxPerSecond', issues);

  const rateLimit = checkRateLimit(options.rateLimit, issues);

  if (issues.length > 0) throw new ValidationError(WHAT, issues, { code: 'validation.options' });
  return {
    options,
    rateLimit,
    polling: { maxConcurrent: maxConcurrent as number, maxPerSecond: maxPerSecond as number },
    log: createLog(logger, logLevel as LogLevel),
    proxy,
    apiBase,
    origin,
    headers: Object.freeze({
      ...headers,
      accept: 'application/json',
      'user-agent': `tenant-messaging/${VERSION} ${runtimeTag()}`,
      'x-api-key': apiKey,
    }),
    timeout,
    maxRetries,
  };
}

function checkRateLimit(given: unknown, issues: Issue[]): ClientConfig['rateLimit'] {
  const fields = given === undefined ? {} : readFields(given, WHAT, '{ rateLimit: { requestsPerSecond: 20 } }');
  checkKnownKeys(fields, RATE_LIMIT_OPTIONS, ' of rateLimit', issues);
  const {
    requestsPerSecond,
    adaptive = true,
    perSender,
    perRecipient,
  } = fields as NonNullable<ClientOptions['rateLimit']>;
  check.positiveNumber(requestsPerSecond, 'rateLimit.requestsPerSecond', issues);
  if (typeof adaptive !== 'boolean') {
    issues.push({ path: 'rateLimit.adaptive', message: `must be true or false, got ${describeValue(adaptive)}` });
  }
  const lane = (value: unknown, name: string, key: string, example: string) => {
    if (value === undefined) return undefined;
    const lane = readFields(value, WHAT, `{ rateLimit: { ${name}: ${example} } }`);
    checkKnownKeys(lane, { [key]: true }, ` of rateLimit.${name}`, issues);
    if (lane[key] === undefined) {
      issues.push({ path: `rateLimit.${name}.${key}`, message: `is required, e.g. { ${name}: ${example} }` });
      return undefined;
    }
    return lane[key];
  };
  const perSenderRate = lane(perSender, 'perSender', 'requestsPerSecond', '{ requestsPerSecond: 10 }');
  check.positiveNumber(perSenderRate, 'rateLimit.perSender.requestsPerSecond', issues);
  const minInterval = lane(perRecipient, 'perRecipient', 'minInterval', '{ minInterval: 1000 }');
  check.positiveInteger(minInterval, 'rateLimit.perRecipient.minInterval', issues);
  return {
    requestsPerSecond,
    adaptive: adaptive !== false,
    perSender: perSenderRate as number | undefined,
    perRecipient: minInterval as number | undefined,
  };
}

function checkBaseUrl(
  options: ClientOptions,
  env: NodeJS.ProcessEnv,
  issues: Issue[],
): { apiBase: string; origin: string } {
  const raw = options.baseUrl ?? env[ENV.baseUrl];
  if (typeof raw !== 'string' || raw.trim() === '') {
    issues.push({
      path: 'baseUrl',
      message: `is required: pass it, or set ${ENV.baseUrl} (e.g. https://acme.example.com)`,
    });
    return { apiBase: '', origin: '' };
  }
  const resolved = resolveApiBase(raw);
  if ('problem' in resolved) {
    issues.push({ path: 'baseUrl', message: resolved.problem, hint: resolved.hint });
    return { apiBase: '', origin: '' };
  }
  const { protocol, hostname } = new URL(resolved.origin);
  if (protocol === 'http:' && !isLoopback(hostname) && options.allowInsecureHttp !== true) {
    issues.push({
      path: 'baseUrl',
      message: `uses plain http:// to ${hostname}: the API key would cross the network unencrypted. Use https://`,
      hint: 'or pass allowInsecureHttp: true for a network you trust',
    });
  }
  return { apiBase: resolved.url, origin: resolved.origin };
}

function checkApiKey(apiKey: unknown, issues: Issue[]): string {
  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    issues.push({ path: 'apiKey', message: `is required: pass it, or set ${ENV.apiKey}` });
    return '';
  }
  if (!API_KEY.test(apiKey)) {
    issues.push({
      path: 'apiKey',
      message:
        'contains white space, a line break or a character outside printable ASCII (a “smart” quote?); copy the key again from your dashboard',
    });
  }
  return apiKey;
}
