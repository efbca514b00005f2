import { type Issue, ValidationError } from '../errors.js';
import { isLoopback } from '../internal/environment.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event.js';
import { secretKey } from './secret.js';

/** One receiver of the events. */
export interface WebhookEndpoint {
  /** Where events are POSTed: https, or http on loopback (or anywhere with `allowInsecureHttp`). */
  readonly url: string;
  /** The endpoint's `whsec_` secret: never logged, never stored, never put into an error. */
  readonly secret: string;
  /**
   * The event types it receives.
   * @default every type
   */
  readonly events?: readonly WebhookEventType[] | undefined;
}

const EVENT_TYPES: readonly string[] = WEBHOOK_EVENT_TYPES;

/**
 * Every endpoint checked before anything is read or sent: an http(s) URL (plain http only on
 * loopback, unless allowed), a usable secret, and known event types. `what` names the caller.
 */
export function checkEndpoints(
  endpoints: readonly WebhookEndpoint[] | undefined,
  allowInsecureHttp: boolean | undefined,
  what: string,
): void {
  const issues: Issue[] = [];
  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    issues.push({
      path: 'endpoints',
      message: "must list at least one { url, secret }, e.g. [{ url: 'https://…/hooks', secret }]",
    });
  }
  for (const [i, endpoint] of (Array.isArray(endpoints) ? endpoints : []).entries()) {
    let url: URL | undefined;
    try {
      url = new URL(endpoint.url);
    } catch {
      issues.push({ path: `endpoints[${i}].url`, message: 'must be an absolute http(s) URL' });
    }
    if (url && url.protocol !== 'https:' && url.protocol !== 'http:') {
      issues.push({ path: `endpoints[${i}].url`, message: `must be http(s), got ${url.protocol}` });
    }
    if (url?.protocol === 'http:' && !isLoopback(url.hostname) && allowInsecureHttp !== true) {
      issues.push({
        path: `endpoints[${i}].url`,
        message:
          'plain http to another host would carry the signed events readable: use https, or allowInsecureHttp: true',
      });
    }
    try {
      secretKey(endpoint.secret);
    } catch {
      issues.push({ path: `endpoints[${i}].secret`, message: 'must be the endpoint’s whsec_ secret (base64)' });
    }
    const events: unknown = endpoint.events;
    if (events !== undefined) {
      const unknown = Array.isArray(events) ? events.filter((type) => !EVENT_TYPES.includes(type)) : [events];
      if (unknown.length > 0 || (Array.isArray(events) && events.length === 0)) {
        issues.push({
          path: `endpoints[${i}].events`,
          message: `must list event types among ${EVENT_TYPES.join(', ')}${unknown.length > 0 ? `, got ${unknown.map(String).join(', ')}` : ', got none'}`,
        });
      }
    }
  }
  if (issues.length > 0) throw new ValidationError(what, issues);
}

/** Whether an endpoint subscribes to an event type. */
export function subscribes(endpoint: WebhookEndpoint, type: string): boolean {
  return !endpoint.events || endpoint.events.includes(type as WebhookEventType);
}

/** An endpoint's URL as logs may show it: no credentials, no query (either may hold a token). */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
