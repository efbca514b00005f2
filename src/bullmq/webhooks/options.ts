import { type Issue, ValidationError } from '../../index.js';
import { checkKnownKeys, describeValue, type KnownKeys, MAX_TIMER_MS, readFields } from '../../seam/option-checks.js';
import { checkDeliverySettings } from '../../seam/webhook-delivery.js';
import type { WebhookEndpoint } from '../../webhooks/index.js';
import { checkConnection, checkName, checkPrefix } from '../checks.js';
import type { WebhookRelayOptions } from './types.js';

const WHAT = 'Invalid WebhookRelay options';

const OPTIONS: KnownKeys<WebhookRelayOptions> = {
  connection: true,
  name: true,
  prefix: true,
  endpoints: true,
  timeout: true,
  retryFor: true,
  concurrency: true,
  allowInsecureHttp: true,
  from: true,
  lockDuration: true,
  stalledInterval: true,
  logger: true,
};
const LOGGER_METHODS = ['debug', 'info', 'warn', 'error'] as const;

/**
 * Every option checked before any I/O, all problems reported at once; the options and the
 * endpoints as read then, once (a getter read again later cannot bring in what was not checked).
 */
export function checkRelayOptions(given: unknown): { options: WebhookRelayOptions; endpoints: WebhookEndpoint[] } {
  const options = readFields(
    given,
    WHAT,
    "{ connection, name: 'sms', endpoints: [{ url, secret }] }",
    'validation.options',
  ) as unknown as WebhookRelayOptions;
  const issues: Issue[] = [];
  checkKnownKeys(options, OPTIONS, ' of WebhookRelay', issues);
  for (const checkOne of [
    () => checkConnection(options.connection, WHAT),
    () => checkName(options.name, WHAT),
    () => checkPrefix(options.prefix, options.connection, WHAT),
  ]) {
    try {
      checkOne();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues);
    }
  }
  const endpoints = checkDeliverySettings(options, issues);
  // Compared once every endpoint is valid: `endpoints` then has the indices the caller gave.
  const urls = endpoints.map((endpoint) => endpoint.url);
  const allValid = Array.isArray(options.endpoints) && urls.length === options.endpoints.length;
  for (const [i, url] of urls.entries()) {
    if (allValid && urls.indexOf(url) !== i) {
      issues.push({
        path: `endpoints[${i}].url`,
        message: 'is listed twice: give each endpoint once (with all its events)',
      });
    }
  }
  wholeDuration(options.lockDuration, 'lockDuration', issues);
  wholeDuration(options.stalledInterval, 'stalledInterval', issues);
  if (options.from !== undefined && options.from !== 'now' && options.from !== 'start') {
    issues.push({ path: 'from', message: `must be 'now' or 'start', got ${describeValue(options.from)}` });
  }
  const { logger } = options;
  if (
    logger !== undefined &&
    !LOGGER_METHODS.every((m) => typeof (logger as unknown as Record<string, unknown>)?.[m] === 'function')
  ) {
    issues.push({ path: 'logger', message: 'must have debug, info, warn and error methods (console fits)' });
  }
  if (issues.length > 0) throw new ValidationError(WHAT, issues, { code: 'validation.options' });
  return { options, endpoints };
}

/** A whole number of ms that a timer can hold: BullMQ's lock and stall timers (BullMQ's locks take whole ms). */
function wholeDuration(value: unknown, path: string, issues: Issue[]): void {
  if (
    value !== undefined &&
    !(Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_TIMER_MS)
  ) {
    issues.push({
      path,
      message: `must be a whole number of ms from 1 to ${MAX_TIMER_MS}, got ${describeValue(value)}`,
    });
  }
}
