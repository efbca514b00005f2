import { type Issue, ValidationError } from '../errors.js';
import { isLoopback } from '../internal/requests/environment.js';
import { check, checkKnownKeys, type KnownKeys } from '../internal/values/checks.js';
import { describeValue } from '../internal/values/describe-value.js';
import { readFields } from '../internal/values/input.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event.js';
import { secretKey } from './secret.js';

/**
 * One receiver of the events.
 *
 * @example
 * ```ts
 * { url: 'https://crm.example.com/hooks', secret: process.env.CRM_WEBHOOK_SECRET, events: ['message.read'] }
 * ```
 */
export interface WebhookEndpoint {
  /**
   * Where events are POSTed: https, or http on loopback (or anywhere with `allowInsecureHttp`).
   * Never with credentials (`user:password@`): the signature under `secret` is what authenticates
   * an event. A query (`?token=…`) is allowed, and never logged, stored or put into an error.
   */
  readonly url: string;
  /** The endpoint's `whsec_` secret: never logged, never stored, never put into an error. */
  readonly secret: string;
  /**
   * The event types it receives.
   * @default every type
   */
  readonly events?: readonly WebhookEventType[] | undefined;
}

/**
 * The options both relays share, checked the same way by `relayWebhooks` and `WebhookRelay`
 * (each with its own default for `retryFor`).
 */
export interface DeliverySettings {
  readonly endpoints: readonly WebhookEndpoint[];
  readonly timeout?: number | undefined;
  readonly retryFor?: number | undefined;
  readonly concurrency?: number | undefined;
  readonly allowInsecureHttp?: boolean | undefined;
}

const ENDPOINT_KEYS: KnownKeys<WebhookEndpoint> = { url: true, secret: true, events: true };
const EVENT_TYPES: readonly string[] = WEBHOOK_EVENT_TYPES;
const ENDPOINT_EXAMPLE = "{ url: 'https://…/hooks', secret }";

/**
 * Checks the options both relays share, pushing an issue for each problem, before anything is
 * read or sent: every endpoint (an object of known keys; an http(s) URL without credentials, plain
 * http only on loopback unless allowed; a usable secret; known event types), and the numbers.
 * Returns the endpoints as read, once: the relay uses these copies, never the caller's objects.
 * No issue quotes a secret or any part of a URL.
 */
export function checkDeliverySettings(options: DeliverySettings, issues: Issue[]): WebhookEndpoint[] {
  const { allowInsecureHttp } = options;
  check.duration(options.timeout, 'timeout', issues);
  check.positiveNumber(options.retryFor, 'retryFor', issues);
  check.positiveInteger(options.concurrency, 'concurrency', issues);
  if (allowInsecureHttp !== undefined && typeof allowInsecureHttp !== 'boolean') {
    issues.push({
      path: 'allowInsecureHttp',
      message: `must be true or false, got ${describeValue(allowInsecureHttp)}`,
    });
  }
  const given: unknown = options.endpoints;
  if (!Array.isArray(given) || given.length === 0) {
    issues.push({ path: 'endpoints', message: `must list at least one endpoint, e.g. [${ENDPOINT_EXAMPLE}]` });
    return [];
  }
  return given.flatMap((endpoint: unknown, i) => {
    const checked = checkEndpoint(endpoint, `endpoints[${i}]`, allowInsecureHttp === true, issues);
    return checked ? [checked] : [];
  });
}

function checkEndpoint(
  given: unknown,
  path: string,
  allowInsecureHttp: boolean,
  issues: Issue[],
): WebhookEndpoint | undefined {
  let fields: Record<string, unknown>;
  try {
    fields = readFields(given, '', ENDPOINT_EXAMPLE);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const issue of error.issues) issues.push({ path, message: issue.message });
    return undefined;
  }
  const found: Issue[] = [];
  checkKnownKeys(fields, ENDPOINT_KEYS, ' of an endpoint', found);
  const { url, secret, events } = fields;
  const urlIssue = urlProblem(url, allowInsecureHttp);
  if (urlIssue) found.push({ path: 'url', message: urlIssue });
  try {
    secretKey(secret as string);
  } catch {
    found.push({ path: 'secret', message: 'must be the endpoint’s whsec_ secret (base64)' });
  }
  if (events !== undefined) {
    const unknown = Array.isArray(events) ? events.filter((type) => !EVENT_TYPES.includes(type)) : [events];
    if (unknown.length > 0 || (Array.isArray(events) && events.length === 0)) {
      found.push({
        path: 'events',
        message: `must list event types among ${EVENT_TYPES.join(', ')}${unknown.length > 0 ? `, got ${unknown.map((type) => describeValue(type)).join(', ')}` : ', got none'}`,
      });
    }
  }
  for (const issue of found) issues.push({ path: `${path}.${issue.path}`, message: issue.message });
  if (found.length > 0) return undefined;
  return {
    url: url as string,
    secret: secret as string,
    ...(events === undefined ? {} : { events: [...(events as WebhookEventType[])] }),
  };
}

/** What is wrong with an endpoint's URL, in words that never quote it (it may hold a token). */
function urlProblem(url: unknown, allowInsecureHttp: boolean): string | undefined {
  const parsed = typeof url === 'string' ? URL.parse(url) : null;
  if (!parsed) return 'must be an absolute http(s) URL, e.g. https://orders.example.com/hooks';
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return `must be http(s), got ${describeValue(parsed.protocol)}`;
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return (
      'must not carry credentials (user:password@ before the host): they would go with every request and ' +
      'be shown wherever the URL is. Take them out of the URL: the signature under the endpoint’s secret ' +
      'is what proves an event comes from you (verifyWebhook). A token the receiver wants may go in the ' +
      'query (?token=…), which is never logged or stored'
    );
  }
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname) && !allowInsecureHttp) {
    return 'plain http to another host would carry the signed events readable: use https, or allowInsecureHttp: true';
  }
  return undefined;
}

/** Whether an endpoint subscribes to an event type. */
export function subscribes(endpoint: WebhookEndpoint, type: string): boolean {
  return !endpoint.events || endpoint.events.includes(type as WebhookEventType);
}
