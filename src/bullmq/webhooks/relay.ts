import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import { ValidationError } from '../../index.js';
import { sleep } from '../../seam/timing.js';
import { fleetEvent, scrubbedText, subscribes } from '../../seam/webhook-delivery.js';
import { loadBullmq } from '../load.js';
import { logRepeats } from '../log-repeats.js';
import { backendOf, makeQueue } from '../store/backend.js';
import { type RelayState, relayStateOf } from '../store/relay-state.js';
import { storeOf } from '../store/store.js';
import type { UpdateLog } from '../store/update-log.js';
import { type RelayBackends, relayBackends } from './backends.js';
import { CLOSE_MS, settlesWithin } from './close.js';
import { type Deliveries, type NewDelivery, openDeliveries, type Target } from './deliveries.js';
import { drainLegacyQueues } from './legacy.js';
import { checkRelayOptions } from './options.js';
import type { DisabledEndpoint, WebhookRelayOptions } from './types.js';

/** The wait before reading the event log again after the datastore failed the read. */
const REREAD_MS = 1_000;

/**
 * Delivery webhooks for the fleet: every update of a `MessagingQueue` (`sent`, `failed`,
 * `unknown`, `delivered`, `read`, `delivery-timeout`, `scheduled`, `quiet-hours`, `rate-limited`, `cancelled`) becomes a signed Standard Webhooks event,
 * delivered to each endpoint that subscribes to its type as a BullMQ job: kept in the queue's
 * datastore (Redis or PostgreSQL), so it survives restarts, and retried with exponential backoff
 * and jitter for `retryFor` (3 days). A 2xx ends a delivery; 410 Gone disables the endpoint (for
 * every relay of the queue, until `enable(url)`). Delivery is at least once, with a `webhook-id`
 * the same on every attempt (`msg_<business id>_<log id>_<status>`), so receivers can drop
 * duplicates.
 *
 * Every endpoint's deliveries share one queue (`<name>.webhook-deliveries`) and one worker per
 * relay process: a relay holds a fixed handful of datastore connections however many endpoints it
 * has. Each endpoint has its own share of the attempts (`concurrency`), so one that stalls or
 * fails holds only its own share, never another endpoint's deliveries.
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
  /** The endpoints, by key (a hash of the URL). */
  readonly #targets: ReadonlyMap<string, Target>;
  readonly #deliveries: Deliveries;
  readonly #stop = new AbortController();
  readonly #reading: Promise<void>;
  /** Moving what relays of 0.x queued (a queue per endpoint) into the deliveries. */
  readonly #draining: Promise<void>;
  /** Where the first relay of the queue starts: `from`, taken when this relay was made. */
  readonly #firstPosition: Promise<string>;
  /** Settles once reading has its position: updates published after that are relayed. */
  readonly #positioned: Promise<void>;
  #onPositioned: () => void = () => undefined;
  #closing: Promise<void> | undefined;
  /** Every BullMQ backend this relay opened: what close() tears down last, whatever happened. */
  readonly #backends: RelayBackends;

  constructor(given: WebhookRelayOptions) {
    const { options, endpoints } = checkRelayOptions(given);
    const bull = loadBullmq();
    this.#options = options;
    this.name = options.name;
    this.#backends = relayBackends(bull, backendOf(bull, options.connection, options.prefix));
    const { backend } = this.#backends;
    this.#source = makeQueue(bull, options.name, backend);
    // Heard, so that an outage is not an unhandled 'error' event (reading also reports its own
    // failures); logged once per kind, with a count.
    const sourceError = logRepeats(options.logger, 'webhook relay: datastore error');
    this.#source.on('error', (error) => sourceError(String(error)));
    this.#log = storeOf(bull, backend, this.#source).updates();
    const state = relayStateOf(backend, this.#source);
    this.#state = state;
    this.#targets = new Map(
      endpoints.map((endpoint): [string, Target] => {
        const key = endpointKey(endpoint.url);
        return [key, { endpoint, key }];
      }),
    );
    const scrub = (text: string) => endpoints.reduce((t, { url }) => scrubbedText(t, url), text);
    this.#deliveries = openDeliveries(bull, {
      queueName: `${options.name}.webhook-deliveries`,
      backend,
      targets: this.#targets,
      options,
      isDisabled: async (key) => (await state.get(disabledField(key))) !== undefined,
      disable: (key) => state.set({ [disabledField(key)]: new Date().toISOString() }),
      scrub,
    });
    this.#firstPosition = this.#log.position(options.from);
    this.#firstPosition.catch(() => undefined); // reading reports it
    this.#positioned = new Promise((resolve) => {
      this.#onPositioned = resolve;
    });
    this.#reading = this.#readUpdates(scrub);
    const queues = new Map([...this.#targets.keys()].map((key) => [key, `${options.name}.webhooks.${key}`]));
    this.#draining = drainLegacyQueues(
      { bull, backend, source: this.#source, queues, deliveries: this.#deliveries, logger: options.logger, scrub },
      this.#stop.signal,
    );
  }

  /**
   * Resolves when the relay has its reading position (every update published from then on is
   * relayed, and, the first time, every update since it was made) and its deliveries are being
   * taken.
   *
   * @example
   * ```ts
   * await relay.ready()
   * ```
   */
  async ready(): Promise<void> {
    await Promise.all([this.#positioned, this.#deliveries.ready()]);
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
    return [...this.#targets.values()].flatMap(({ endpoint, key }) => {
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
    const target = this.#targets.get(endpointKey(url));
    if (!target || target.endpoint.url !== url) {
      throw new ValidationError('Invalid enable', [
        { path: 'url', message: "must be the url of one of this relay's endpoints, exactly as configured" },
      ]);
    }
    await this.#state.remove(disabledField(target.key));
  }

  /**
   * Stops reading updates, lets the attempts in progress end (each within `timeout`) and be
   * recorded, and closes the connections. Deliveries not made yet stay in the datastore for the
   * next relay. It always settles: within `timeout` + 6 s at most (1 to 3 s when no attempt is in
   * flight), even when the datastore does not answer (killed, unreachable, or the process out of
   * file descriptors): what did not close in time is then torn down without waiting, and an
   * attempt whose end could not be recorded is made again by another relay (after
   * `lockDuration`). It leaves no socket open and nothing reconnecting.
   *
   * @example
   * ```ts
   * process.on('SIGTERM', async () => { await relay.close(); process.exit(0) })
   * ```
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async #shutDown(): Promise<void> {
    this.#stop.abort();
    this.#onPositioned();
    // Reading stops (its last read may wait on the datastore: bounded) while the attempts end.
    await Promise.all([
      settlesWithin(Promise.all([this.#reading, this.#draining, this.#log.close()]), CLOSE_MS),
      this.#deliveries.close(),
    ]);
    // The relayed queue holds the 410 marks an attempt may write: closed once the attempts ended.
    await settlesWithin(this.#source.close(), CLOSE_MS);
    // What the datastore did not let close in time (a reader between two reconnections) goes now.
    await this.#backends.closeAll(CLOSE_MS);
  }

  /**
   * Reads the queue's updates from where the relays last stopped and queues their deliveries.
   * The position is stored only after an update's deliveries are queued, so a relay killed in
   * between reads that update again; re-queueing it adds nothing, because a delivery's job id is
   * its `webhook-id` at its endpoint and BullMQ adds a job id once while the job is kept (a day
   * once delivered). Relays reading at once store positions in any order: one may move back a
   * little, which only makes the next start re-read (and re-add nothing).
   */
  async #readUpdates(scrub: (text: string) => string): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        const cursor = await position(this.#state, await this.#firstPosition);
        this.#onPositioned();
        if (signal.aborted) return; // closed meanwhile: no new reader (it would open a connection)
        for await (const update of this.#log.read(cursor, signal)) {
          const event = fleetEvent(update);
          const state = await this.#state.all();
          const deliveries: NewDelivery[] = [];
          for (const { endpoint, key } of this.#targets.values()) {
            if (!subscribes(endpoint, event.type) || state[disabledField(key)] !== undefined) continue;
            deliveries.push({ data: { v: 2, endpoint: key, webhookId: event.webhookId, body: event.body } });
          }
          await this.#deliveries.add(deliveries);
          await this.#state.set({ cursor: update.eventId });
        }
      } catch (error) {
        if (signal.aborted) return;
        // The datastore went away or refused a command: BullMQ reconnects by itself; read again from the
        // stored position once it may be back.
        const text = scrub(String(error));
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
