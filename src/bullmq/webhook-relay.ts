import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import { type Issue, ValidationError } from '../errors.js';
import { checkKnownKeys, type KnownKeys, MAX_TIMER_MS } from '../internal/checks.js';
import { describeValue } from '../internal/describe-value.js';
import { readFields } from '../internal/input.js';
import { sleep } from '../internal/sleep.js';
import { checkDeliverySettings, subscribes, type WebhookEndpoint } from '../webhooks/endpoints.js';
import { fleetEvent } from '../webhooks/events-of.js';
import { scrubbedText } from '../webhooks/shown-url.js';
import { checkConnection, checkName } from './checks.js';
import { loadBullmq } from './load.js';
import { backendOf, makeQueue } from './store/backend.js';
import { storeOf } from './store/store.js';
import type { UpdateLog } from './store/update-log.js';
import { type Deliveries, type DeliveryJob, openDeliveries } from './webhook-deliveries.js';
import { type RelayState, relayStateOf } from './webhook-state.js';
import type { DisabledEndpoint, WebhookRelayOptions } from './webhook-types.js';

const WHAT = 'Invalid WebhookRelay options';

/** The wait before reading the event log again after the datastore failed the read. */
const REREAD_MS = 1_000;

/** One endpoint, with its queue of deliveries. */
interface Target {
  readonly endpoint: WebhookEndpoint;
  /** A hash of its URL: names its queue and its disabled mark, so that neither holds the URL. */
  readonly key: string;
  readonly deliveries: Deliveries;
}

/**
 * Delivery webhooks for the fleet: every update of a `MessagingQueue` (`sent`, `failed`,
 * `unknown`, `delivered`, `read`, `delivery-timeout`) becomes a signed Standard Webhooks event,
 * delivered to each endpoint that subscribes to its type as a BullMQ job of that endpoint's own
 * queue: kept in the queue's datastore (Redis or PostgreSQL), so it survives restarts, and retried with exponential backoff and jitter
 * for `retryFor` (3 days). A 2xx ends a delivery; 410 Gone disables the endpoint (for every relay
 * of the queue, until `enable(url)`). Delivery is at least once, with a `webhook-id` the same on
 * every attempt (`msg_<business id>_<log id>_<status>`), so receivers can drop duplicates.
 *
 * Run it in one process or several (any number of relays of a queue share the work: deliveries
 * are jobs, and the reading of updates is idempotent). Its requests go to your endpoints only:
 * they share nothing with the API's rate limit. Secrets stay in this process's memory: the
 * queue's datastore holds the events and a hash of each endpoint's URL, never a secret or a URL's
 * credentials, query or fragment (a failed delivery's reason and the logger's lines show the URL
 * as its origin and path at most). Every option is checked at construction, before any I/O: an
 * unknown key, a bad number, or a URL with credentials (`user:pass@`) is a `ValidationError`.
 *
 * @example
 * ```ts
 * const relay = new WebhookRelay({
 *   connection, name: 'sms',
 *   endpoints: [{ url: 'https://orders.example.com/hooks/messaging', secret: process.env.WEBHOOK_SECRET }],
 * })
 * process.on('SIGTERM', () => relay.close())
 * ```
 */
export class WebhookRelay {
  /** The relayed queue's name. */
  readonly name: string;
  readonly #options: WebhookRelayOptions;
  /** The relayed queue: its datastore holds the relay's state. */
  readonly #source: Queue;
  readonly #state: RelayState;
  /** The relayed queue's updates. */
  readonly #log: UpdateLog;
  readonly #targets: readonly Target[];
  readonly #stop = new AbortController();
  readonly #reading: Promise<void>;
  /** Where the first relay of the queue starts: `from`, taken when this relay was made. */
  readonly #firstPosition: Promise<string>;
  /** Settles once reading has its position: updates published after that are relayed. */
  readonly #positioned: Promise<void>;
  #onPositioned: () => void = () => undefined;

  constructor(given: WebhookRelayOptions) {
    const { options, endpoints } = checkRelayOptions(given);
    const bull = loadBullmq();
    this.#options = options;
    this.name = options.name;
    const backend = backendOf(bull, options.connection);
    this.#source = makeQueue(bull, options.name, backend);
    this.#log = storeOf(bull, backend, this.#source).updates();
    const state = relayStateOf(backend, this.#source);
    this.#state = state;
    this.#targets = endpoints.map((endpoint) => {
      const key = endpointKey(endpoint.url);
      return {
        endpoint,
        key,
        deliveries: openDeliveries(bull, {
          queueName: `${options.name}.webhooks.${key}`,
          backend,
          endpoint,
          options,
          isDisabled: async () => (await state.get(disabledField(key))) !== undefined,
          disable: () => state.set({ [disabledField(key)]: new Date().toISOString() }),
        }),
      };
    });
    this.#firstPosition = this.#log.position(options.from);
    this.#firstPosition.catch(() => undefined); // reading reports it
    this.#positioned = new Promise((resolve) => {
      this.#onPositioned = resolve;
    });
    this.#reading = this.#readUpdates();
  }

  /**
   * Resolves when the relay has its reading position (every update published from then on is
   * relayed, and, the first time, every update since it was made) and every endpoint's
   * deliveries are being taken.
   *
   * @example
   * ```ts
   * await relay.ready()
   * ```
   */
  async ready(): Promise<void> {
    await Promise.all([this.#positioned, ...this.#targets.map((target) => target.deliveries.ready())]);
  }

  /**
   * The configured endpoints that answered 410 Gone, and since when. Nothing is sent to them
   * until `enable(url)`.
   *
   * @example
   * ```ts
   * const gone = await relay.disabledEndpoints()
   * ```
   */
  async disabledEndpoints(): Promise<DisabledEndpoint[]> {
    const state = await this.#state.all();
    return this.#targets.flatMap(({ endpoint, key }) => {
      const since = state[disabledField(key)];
      return since === undefined ? [] : [{ url: endpoint.url, since }];
    });
  }

  /**
   * Sends to an endpoint disabled by a 410 again, from the next update on. The events it missed
   * meanwhile are not sent, except those a relay of the queue had not read yet when it was
   * enabled (each relay reads at its own pace).
   *
   * @example
   * ```ts
   * await relay.enable('https://orders.example.com/hooks/messaging')
   * ```
   */
  async enable(url: string): Promise<void> {
    const target = this.#targets.find((t) => t.endpoint.url === url);
    if (!target) {
      throw new ValidationError('Invalid enable', [
        { path: 'url', message: "must be the url of one of this relay's endpoints, exactly as configured" },
      ]);
    }
    await this.#state.remove(disabledField(target.key));
  }

  /**
   * Stops reading updates, lets the attempts in progress end (each within `timeout`), and closes
   * the connections. Deliveries not made yet stay in the datastore for the next relay.
   *
   * @example
   * ```ts
   * process.on('SIGTERM', async () => { await relay.close(); process.exit(0) })
   * ```
   */
  async close(): Promise<void> {
    this.#stop.abort();
    this.#onPositioned();
    await this.#reading;
    await Promise.all(this.#targets.map((target) => target.deliveries.close()));
    await this.#log.close();
    await this.#source.close();
  }

  /**
   * Reads the queue's updates from where the relays last stopped and queues their deliveries.
   * The position is stored only after an update's deliveries are queued, so a relay killed in
   * between reads that update again; re-queueing it adds nothing, because a delivery's job id is
   * its `webhook-id` and BullMQ adds a job id once while the job is kept (a day once delivered).
   * Relays reading at once store positions in any order: one may move back a little, which only
   * makes the next start re-read (and re-add nothing).
   */
  async #readUpdates(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        const cursor = await position(this.#state, await this.#firstPosition);
        this.#onPositioned();
        for await (const update of this.#log.read(cursor, signal)) {
          const event = fleetEvent(update);
          const state = await this.#state.all();
          const job: DeliveryJob = { v: 1, webhookId: event.webhookId, body: event.body };
          await Promise.all(
            this.#targets
              .filter((t) => subscribes(t.endpoint, event.type) && state[disabledField(t.key)] === undefined)
              .map((t) => t.deliveries.add(job)),
          );
          await this.#state.set({ cursor: update.eventId });
        }
      } catch (error) {
        if (signal.aborted) return;
        // The datastore went away or refused a command: BullMQ reconnects by itself; read again from the
        // stored position once it may be back.
        const text = this.#targets.reduce((t, { endpoint }) => scrubbedText(t, endpoint.url), String(error));
        this.#options.logger?.error('webhook relay: reading updates failed; reading again', { error: text });
        await sleep(REREAD_MS, signal).catch(() => undefined);
      }
    }
  }
}

/**
 * Where reading starts: the stored position, or, the first time, `first`, stored at once so that
 * a relay restarted before the first update still starts there.
 */
async function position(state: RelayState, first: string): Promise<string> {
  const stored = await state.get('cursor');
  if (stored !== undefined) return stored;
  await state.set({ cursor: first });
  return first;
}

const endpointKey = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 16);
const disabledField = (key: string) => `disabled:${key}`;

const OPTIONS: KnownKeys<WebhookRelayOptions> = {
  connection: true,
  name: true,
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
function checkRelayOptions(given: unknown): { options: WebhookRelayOptions; endpoints: WebhookEndpoint[] } {
  const options = readFields(
    given,
    WHAT,
    "{ connection, name: 'sms', endpoints: [{ url, secret }] }",
  ) as unknown as WebhookRelayOptions;
  const issues: Issue[] = [];
  checkKnownKeys(options, OPTIONS, ' of WebhookRelay', issues);
  for (const checkOne of [() => checkConnection(options.connection, WHAT), () => checkName(options.name, WHAT)]) {
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
  if (issues.length > 0) throw new ValidationError(WHAT, issues);
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
