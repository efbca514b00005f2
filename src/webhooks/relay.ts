import { type Issue, ValidationError } from '../errors.js';
import { isLoopback } from '../internal/environment.js';
import { sleep } from '../internal/sleep.js';
import type { DeliveryUpdate } from '../types/many.js';
import type { WebhookEvent, WebhookEventType } from './event.js';
import { secretKey } from './secret.js';
import { signWebhook } from './sign.js';

/** One receiver of the events. */
export interface WebhookEndpoint {
  /** Where events are POSTed: https, or http on loopback (or anywhere with `allowInsecureHttp`). */
  readonly url: string;
  /** The endpoint's `whsec_` secret: never logged, never put into an error. */
  readonly secret: string;
  /**
   * The event types it receives.
   * @default every type
   */
  readonly events?: readonly WebhookEventType[] | undefined;
}

/** Options of `relayWebhooks`. */
export interface RelayWebhooksOptions {
  readonly endpoints: readonly WebhookEndpoint[];
  /**
   * Milliseconds one attempt may take (connection, headers and all).
   * @default 10000
   */
  readonly timeout?: number | undefined;
  /**
   * Milliseconds an event keeps being retried at one endpoint, with exponential backoff and
   * jitter. This process's memory holds the retries: they do not survive a restart.
   * @default 600000 (10 minutes)
   */
  readonly retryFor?: number | undefined;
  /**
   * Attempts in flight at once at one endpoint; a delivery waiting between two attempts holds none.
   * @default 8
   */
  readonly concurrency?: number | undefined;
  /**
   * Allow plain `http://` to a host other than loopback.
   * @default false
   */
  readonly allowInsecureHttp?: boolean | undefined;
  /**
   * Stops reading updates and every retry; the relay then resolves with what it did.
   * @default undefined
   */
  readonly signal?: AbortSignal | undefined;
}

/** What a relay did. */
export interface RelaySummary {
  /** Events made from the updates. */
  readonly events: number;
  /** Deliveries an endpoint answered 2xx. */
  readonly delivered: number;
  /** Deliveries given up after `retryFor` (or stopped by the signal). */
  readonly gaveUp: number;
  /** Endpoints that answered 410 Gone: nothing more was sent to them. */
  readonly disabled: readonly string[];
}

const FIRST_RETRY_MS = 1_000;
const LONGEST_WAIT_MS = 5 * 60_000;

/**
 * Turns delivery updates (from `client.trackDeliveries(ids)`) into signed Standard Webhooks
 * events POSTed to each endpoint that subscribes to their type: one process, no fleet. A 2xx ends
 * a delivery; 410 Gone disables the endpoint; any other answer, a timeout or a connection error
 * is retried with exponential backoff and full jitter for `retryFor`. `webhook-id` is the same
 * across retries of one event (`msg_<log id>_<status>`), so receivers can drop duplicates:
 * delivery is at least once. A redirect is never followed and an answer's body is never read.
 * Updates that say a log cannot be tracked (`status: 'failed'` with an `error`) make no event.
 *
 * The retries live in this process: they are lost if it exits. For durable delivery across
 * restarts use the fleet's relay (issue 21, to come).
 *
 * @example
 * ```ts
 * const summary = await relayWebhooks(client.trackDeliveries(ids), {
 *   endpoints: [{ url: 'https://orders.example.com/hooks/messaging', secret: process.env.WEBHOOK_SECRET }],
 * })
 * ```
 */
export async function relayWebhooks(
  updates: AsyncIterable<DeliveryUpdate>,
  options: RelayWebhooksOptions,
): Promise<RelaySummary> {
  checkEndpoints(options);
  const timeout = options.timeout ?? 10_000;
  const retryFor = options.retryFor ?? 600_000;
  const disabled = new Set<string>();
  const deliveries: Promise<void>[] = [];
  let events = 0;
  let delivered = 0;
  let gaveUp = 0;

  const slots = new Map(options.endpoints.map((endpoint) => [endpoint, slotsOf(options.concurrency ?? 8)]));

  const deliver = async (endpoint: WebhookEndpoint, id: string, body: string): Promise<void> => {
    const giveUpAt = Date.now() + retryFor;
    const slot = slots.get(endpoint) as Slots;
    for (let attempt = 0; ; attempt++) {
      await slot.take();
      let status: number | undefined;
      try {
        // Checked once a slot is ours: an attempt queued behind the one that got 410 is not made.
        if (disabled.has(endpoint.url)) return;
        status = await post(endpoint, id, body, timeout, options.signal);
      } finally {
        slot.give();
      }
      if (status !== undefined && status >= 200 && status < 300) {
        delivered++;
        return;
      }
      if (status === 410) {
        disabled.add(endpoint.url);
        return;
      }
      const wait = Math.random() * Math.min(LONGEST_WAIT_MS, FIRST_RETRY_MS * 2 ** attempt);
      if (options.signal?.aborted || Date.now() + wait > giveUpAt) {
        gaveUp++;
        return;
      }
      // An abort ends the wait early; the next attempt then sees it and gives up.
      await sleep(wait, options.signal).catch(() => undefined);
    }
  };

  try {
    for await (const update of updates) {
      const event = eventOf(update);
      if (!event) continue;
      events++;
      const id = `msg_${event.data.log_id}_${event.data.status}`;
      const body = JSON.stringify(event);
      for (const endpoint of options.endpoints) {
        if (endpoint.events && !endpoint.events.includes(event.type as WebhookEventType)) continue;
        deliveries.push(deliver(endpoint, id, body));
      }
      if (options.signal?.aborted) break;
    }
  } catch (error) {
    if (!options.signal?.aborted) {
      // The deliveries already begun still end (or give up) before the error is passed on:
      // nothing keeps sending after the caller has its answer.
      await Promise.all(deliveries);
      throw error;
    }
  }
  await Promise.all(deliveries);
  return { events, delivered, gaveUp, disabled: [...disabled] };
}

/** The event of an update, or undefined for one that says the log cannot be tracked. */
function eventOf(update: DeliveryUpdate): WebhookEvent | undefined {
  if ('error' in update) return undefined;
  const status = update.status === 'timeout' ? 'delivery-timeout' : update.status;
  const log = update.log;
  return {
    type: `message.${status}`,
    timestamp: new Date().toISOString(),
    data: {
      id: String(update.id),
      log_id: update.id,
      status,
      ...(log ? { log } : {}),
    },
  };
}

/** One attempt: the answer's status, or undefined when none came (timeout, connection error). */
async function post(
  endpoint: WebhookEndpoint,
  id: string,
  body: string,
  timeout: number,
  signal: AbortSignal | undefined,
): Promise<number | undefined> {
  const deadline = AbortSignal.timeout(timeout);
  try {
    const headers = await signWebhook(body, endpoint.secret, { id });
    const response = await fetch(endpoint.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'tenant-messaging-webhooks' },
      body,
      // Never followed: the signed event goes only where it was configured to go.
      redirect: 'manual',
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
    // The answer's body is not ours to read: released at once, however large or slow it is.
    await response.body?.cancel().catch(() => undefined);
    return response.status;
  } catch {
    return undefined;
  }
}

/** Every endpoint checked before any event is read: a URL that is http(s), and a usable secret. */
function checkEndpoints(options: RelayWebhooksOptions): void {
  const issues: Issue[] = [];
  if (!Array.isArray(options?.endpoints) || options.endpoints.length === 0) {
    issues.push({
      path: 'endpoints',
      message: "must list at least one { url, secret }, e.g. [{ url: 'https://…/hooks', secret }]",
    });
  }
  for (const [i, endpoint] of (Array.isArray(options?.endpoints) ? options.endpoints : []).entries()) {
    let url: URL | undefined;
    try {
      url = new URL(endpoint.url);
    } catch {
      issues.push({ path: `endpoints[${i}].url`, message: 'must be an absolute http(s) URL' });
    }
    if (url && url.protocol !== 'https:' && url.protocol !== 'http:') {
      issues.push({ path: `endpoints[${i}].url`, message: `must be http(s), got ${url.protocol}` });
    }
    if (url?.protocol === 'http:' && !isLoopback(url.hostname) && options.allowInsecureHttp !== true) {
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
  }
  if (issues.length > 0) throw new ValidationError('Invalid relayWebhooks options', issues);
}

/** A count of free slots, with the takers waiting in order. */
interface Slots {
  take(): Promise<void>;
  give(): void;
}

function slotsOf(size: number): Slots {
  let free = Math.max(1, Math.floor(size));
  const waiting: (() => void)[] = [];
  return {
    take: () => {
      if (free > 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise((resolve) => waiting.push(resolve));
    },
    give: () => {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}
