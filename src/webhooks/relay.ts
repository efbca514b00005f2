import { type Issue, ValidationError } from '../errors.js';
import { check, checkKnownKeys, type KnownKeys } from '../internal/values/checks.js';
import { readFields } from '../internal/values/input.js';
import { sleep } from '../internal/waiting/sleep.js';
import type { DeliveryUpdate } from '../types/many.js';
import { type AttemptOutcome, attempt, isDelivered, isGone, retryDelay } from './attempt.js';
import { checkDeliverySettings, subscribes, type WebhookEndpoint } from './endpoints.js';
import { eventOf, type FleetUpdate, type OutgoingEvent } from './events-of.js';
import { shownUrl } from './shown-url.js';

/**
 * Options of `relayWebhooks`. An unknown key is refused (a misspelt option would otherwise be
 * ignored), as the client refuses one.
 *
 * @example
 * ```ts
 * { endpoints: [{ url: 'https://orders.example.com/hooks', secret }], retryFor: 60_000, concurrency: 4 }
 * ```
 */
export interface RelayWebhooksOptions {
  /** Where the events go: each `{ url, secret, events? }`. */
  readonly endpoints: readonly WebhookEndpoint[];
  /**
   * Milliseconds one attempt may take (connection, headers and all), up to 2147483647.
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
   * Stops reading updates, every retry and every attempt not yet begun (each given up); an attempt
   * already in flight still ends by its answer or `timeout`, so the summary says whether its event
   * arrived. The relay then resolves with what it did.
   * @default undefined
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Told after every attempt, with its answer and what happens next: for logs, or a live view.
   * @default undefined
   * @example
   * ```ts
   * onAttempt: (a) => console.log(a.type, a.webhookId, a.status ?? a.failure, a.outcome)
   * ```
   */
  readonly onAttempt?: ((attempt: WebhookAttempt) => void) | undefined;
}

/** One attempt of `relayWebhooks`, as `onAttempt` is told it. */
export interface WebhookAttempt {
  readonly webhookId: string;
  /** The event type, e.g. `message.delivered`. */
  readonly type: string;
  /**
   * The endpoint, as logs may show it: its origin and path, without the query, fragment or
   * credentials (any of them may hold a token). A URL without them is as configured.
   */
  readonly url: string;
  /** The endpoint's answer, when one came. */
  readonly status?: number | undefined;
  /**
   * Why no answer came (a timeout, a refused connection...), when none did. Never quotes the
   * endpoint's query, fragment or credentials, even where the network's error did.
   */
  readonly failure?: string | undefined;
  /** `delivered` (2xx), `disabled` (410), `retrying`, or `gave-up` (`retryFor` passed, or the signal). */
  readonly outcome: 'delivered' | 'disabled' | 'retrying' | 'gave-up';
}

/** What a relay did. */
export interface RelaySummary {
  /** Events made from the updates. */
  readonly events: number;
  /** Deliveries an endpoint answered 2xx. */
  readonly delivered: number;
  /** Deliveries given up after `retryFor` (or stopped by the signal). */
  readonly gaveUp: number;
  /**
   * Endpoints that answered 410 Gone: nothing more was sent to them. Their URLs as configured, to
   * match against your list (log them through `onAttempt`'s `url`, which hides a query).
   */
  readonly disabled: readonly string[];
}

const FIRST_RETRY_MS = 1_000;
/** The outcome of an attempt the signal came before. */
const NOT_BEGUN: AttemptOutcome = { failure: 'not attempted: the relay was stopped' };
const LONGEST_WAIT_MS = 5 * 60_000;

/**
 * Turns delivery updates (from `client.trackDeliveries(ids)`, or a fleet queue's `updates()`) into
 * signed Standard Webhooks events POSTed to each endpoint that subscribes to their type, from
 * this one process. A 2xx ends
 * a delivery; 410 Gone disables the endpoint; any other answer, a timeout or a connection error
 * is retried with exponential backoff and full jitter for `retryFor`. `webhook-id` is the same
 * across retries of one event (`msg_<log id>_<status>`, or for a fleet update
 * `msg_<business id>_<log id>_<status>`), so receivers can drop duplicates:
 * delivery is at least once. A redirect is never followed and an answer's body is never read.
 * Updates that say a log cannot be tracked (`status: 'failed'` with an `error`) make no event.
 *
 * Every option is checked before an update is read: an unknown key, a bad number, or a URL with
 * credentials (`user:pass@`: the signature is what authenticates an event) is a `ValidationError`.
 * A URL's query may carry a token: `onAttempt` is told the URL without it (origin and path), and
 * a failure text never quotes it.
 *
 * The retries live in this process: they are lost if it exits. For durable delivery across
 * restarts use `WebhookRelay` from `tenant-messaging/bullmq`, which keeps each delivery as a job.
 *
 * @example
 * ```ts
 * const summary = await relayWebhooks(client.trackDeliveries(ids), {
 *   endpoints: [{ url: 'https://orders.example.com/hooks/messaging', secret: process.env.WEBHOOK_SECRET }],
 * })
 * ```
 */
export async function relayWebhooks(
  updates: AsyncIterable<DeliveryUpdate | FleetUpdate>,
  given: RelayWebhooksOptions,
): Promise<RelaySummary> {
  const { options, endpoints } = checkRelayWebhooksOptions(given);
  const timeout = options.timeout ?? 10_000;
  const retryFor = options.retryFor ?? 600_000;
  const disabled = new Set<string>();
  const deliveries: Promise<void>[] = [];
  let events = 0;
  let delivered = 0;
  let gaveUp = 0;

  const slots = new Map(endpoints.map((endpoint) => [endpoint, slotsOf(options.concurrency ?? 8)]));
  const shown = new Map(endpoints.map((endpoint) => [endpoint, shownUrl(endpoint.url)]));

  const deliver = async (endpoint: WebhookEndpoint, event: OutgoingEvent): Promise<void> => {
    const giveUpAt = Date.now() + retryFor;
    const slot = slots.get(endpoint) as Slots;
    for (let n = 1; ; n++) {
      await slot.take();
      let outcome: AttemptOutcome;
      try {
        // Checked once a slot is ours: an attempt queued behind the one that got 410 is not made.
        if (disabled.has(endpoint.url)) return;
        // The signal begins no attempt; one in flight ends by itself (an endpoint that got the
        // event and is answering would otherwise be counted as given up, and the event resent).
        outcome = options.signal?.aborted ? NOT_BEGUN : await attempt(endpoint, event.webhookId, event.body, timeout);
      } finally {
        slot.give();
      }
      const tell = (next: WebhookAttempt['outcome']) =>
        options.onAttempt?.({
          webhookId: event.webhookId,
          type: event.type,
          url: shown.get(endpoint) as string,
          ...outcome,
          outcome: next,
        });
      if (isDelivered(outcome)) {
        delivered++;
        tell('delivered');
        return;
      }
      if (isGone(outcome)) {
        disabled.add(endpoint.url);
        tell('disabled');
        return;
      }
      const wait = retryDelay(n, FIRST_RETRY_MS, LONGEST_WAIT_MS);
      if (options.signal?.aborted || Date.now() + wait > giveUpAt) {
        gaveUp++;
        tell('gave-up');
        return;
      }
      tell('retrying');
      // An abort ends the wait early; the next turn then sees it and gives up.
      await sleep(wait, options.signal).catch(() => undefined);
    }
  };

  try {
    for await (const update of updates) {
      const event = eventOf(update);
      if (!event) continue;
      events++;
      for (const endpoint of endpoints) {
        if (subscribes(endpoint, event.type)) deliveries.push(deliver(endpoint, event));
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

const WHAT = 'Invalid relayWebhooks options';
const OPTIONS: KnownKeys<RelayWebhooksOptions> = {
  endpoints: true,
  timeout: true,
  retryFor: true,
  concurrency: true,
  allowInsecureHttp: true,
  signal: true,
  onAttempt: true,
};

/**
 * Every option checked before an update is read or a request sent, all problems reported at once;
 * the options and the endpoints as read then, once.
 */
function checkRelayWebhooksOptions(given: unknown): { options: RelayWebhooksOptions; endpoints: WebhookEndpoint[] } {
  const options = readFields(
    given,
    WHAT,
    "{ endpoints: [{ url: 'https://…/hooks', secret }] }",
    'validation.options',
  ) as unknown as RelayWebhooksOptions;
  const issues: Issue[] = [];
  checkKnownKeys(options, OPTIONS, ' of relayWebhooks', issues);
  const endpoints = checkDeliverySettings(options, issues);
  check.signal(options.signal, 'signal', issues);
  check.callback(options.onAttempt, 'onAttempt', issues);
  if (issues.length > 0) throw new ValidationError(WHAT, issues, { code: 'validation.options' });
  return { options, endpoints };
}

/** A count of free slots, with the takers waiting in order. */
interface Slots {
  take(): Promise<void>;
  give(): void;
}

function slotsOf(size: number): Slots {
  let free = size;
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
