import type { Queue, Worker } from 'bullmq';
import type { Logger } from '../../index.js';
import { sleep } from '../../seam/timing.js';
import { checkRetention } from '../checks.js';
import { DatastoreError } from '../errors.js';
import { createFleetGate, openGate } from '../fleet/gate.js';
import { checkFleetLanesPeer, createFleetLanes } from '../fleet/lanes.js';
import { PAUSE_ONLY_LIMITER } from '../fleet/limiter.js';
import { loadBullmq } from '../load.js';
import { logRepeats } from '../log-repeats.js';
import type { SendJobData, SendJobResult } from '../send/job-data.js';
import { markConfirmer } from '../send/mark.js';
import { createProcessor } from '../send/process.js';
import type { TrackSettings } from '../send/process-deps.js';
import { backendOf, explained, makeQueue, makeWorker } from '../store/backend.js';
import type { DatastoreGuard } from '../store/guard.js';
import { storeOf } from '../store/store.js';
import type { Replication } from '../store/types.js';
import type { UpdateLog } from '../store/update-log.js';
import type { MessagingWorkerOptions } from '../worker-types.js';
import { checkWorkerOptions, WORKER_OPTIONS } from './options.js';

/** `clockSkewMs`'s default: the same margin as `messages.reconcile`'s. */
export const CLOCK_SKEW_DEFAULT = 60_000;

/** Tracking defaults (see `TrackDeliveryOptions`). */
export const TRACK_DEFAULTS: TrackSettings = Object.freeze({ until: 'delivered', timeout: 3_600_000, interval: 2_000 });

/**
 * The worker side of the outbox: any number of processes on any number of machines take sends
 * from the queue, within one fleet-wide rate limit, and never send one twice after a crash
 * (see send/states.ts for the state table).
 *
 * @example
 * ```ts
 * const worker = new MessagingWorker({
 *   connection, name: 'sms', client: new MessagingClient({ baseUrl, apiKey }),
 *   concurrency: 8, rateLimit: { requestsPerSecond: 50 }, trackDelivery: { until: 'delivered' },
 * })
 * process.on('SIGTERM', () => worker.close())
 * ```
 */
export class MessagingWorker {
  /** The queue's name. */
  readonly name: string;
  readonly #worker: Worker<SendJobData, SendJobResult>;
  readonly #queue: Queue<SendJobData, SendJobResult>;
  readonly #updates: UpdateLog;
  readonly #replication: Replication;
  readonly #closing = new AbortController();
  readonly #started: Promise<void>;
  #watch: ReturnType<typeof setInterval> | undefined;

  constructor(options: MessagingWorkerOptions) {
    checkWorkerOptions(options);
    // Before any connection opens: a constructor that throws after opening one keeps the process alive.
    checkFleetLanesPeer(options.rateLimit?.perRecipient?.minInterval);
    const retention = checkRetention(options.retention, WORKER_OPTIONS);
    const bull = loadBullmq();
    const { name } = options;
    const backend = backendOf(bull, options.connection, options.prefix);
    this.name = name;
    this.#queue = makeQueue<SendJobData, SendJobResult>(bull, name, backend);
    const store = storeOf(bull, backend, this.#queue);
    this.#updates = store.updates();
    this.#replication = store.replication(options);
    // No SDK retries: a 429 must reach the processor, which pauses the whole queue (every worker)
    // for its Retry-After; a send whose connection was never made is retried by BullMQ (attempts).
    // No SDK rate gate either: the fleet gate admits each request, and a request the client then
    // held (pacing from rate headers) would keep its place in the fleet gate while it waited.
    const client = options.client.withOptions({ maxRetries: 0, rateLimit: { adaptive: false } });
    const limit = options.rateLimit?.requestsPerSecond;
    const gate =
      limit === undefined
        ? openGate
        : createFleetGate({
            places: store.places(),
            limit,
            requestTimeout: client.timeout,
            onSettleError: (error) =>
              options.logger?.warn('fleet gate: a place was not freed', { error: String(error) }),
          });
    const lanes = createFleetLanes({
      places: (lane) => store.places(lane),
      perSender: options.rateLimit?.perSender?.requestsPerSecond,
      perRecipient: options.rateLimit?.perRecipient?.minInterval,
      requestTimeout: client.timeout,
      onSettleError: (error) => options.logger?.warn('fleet lanes: a place was not freed', { error: String(error) }),
    });
    const processor = createProcessor({
      bull,
      client,
      queue: this.#queue,
      updates: this.#updates,
      gate,
      lanes,
      track: options.trackDelivery ? { ...TRACK_DEFAULTS, ...options.trackDelivery } : undefined,
      logger: options.logger,
      requestsPerSecond: limit,
      clockSkewMs: options.clockSkewMs ?? CLOCK_SKEW_DEFAULT,
      marks: markConfirmer(this.#replication, options.logger),
      owned: store.ownedWrites(),
    });
    this.#worker = makeWorker<SendJobData, SendJobResult>(bull, name, processor, backend, {
      // Started once the datastore is found fit to keep sends (see #start).
      autorun: false,
      concurrency: options.concurrency ?? 1,
      // The gate paces the requests; the limiter is there only so that a 429's pause reaches this worker.
      ...(limit === undefined ? {} : { limiter: PAUSE_ONLY_LIMITER }),
      ...(options.lockDuration === undefined ? {} : { lockDuration: options.lockDuration }),
      ...(options.stalledInterval === undefined ? {} : { stalledInterval: options.stalledInterval }),
      removeOnComplete: { age: retention.sentSeconds },
      removeOnFail: { age: Math.max(retention.failedSeconds, retention.unknownSeconds) },
      // A job that stalls again after its re-run is still reconciled, never failed by BullMQ for it.
      maxStalledCount: 10,
    });
    // Connection trouble with the datastore: BullMQ reconnects by itself; without a listener it would be an unhandled 'error' event.
    // Once per kind of error with a count: a datastore that refuses every call would otherwise
    // log thousands of lines a second.
    const logError = logRepeats(options.logger, 'bullmq worker error');
    const onError = (error: unknown) => logError(String(explained(error)));
    this.#worker.on('error', onError);
    this.#queue.on('error', onError);
    this.#started = this.#start(store.guard(options), options.logger);
    this.#started.catch(() => undefined); // ready() reports it; a worker nobody awaits must not leave it unhandled
  }

  /**
   * Checks the datastore (tried again with backoff while it cannot be reached), then starts taking
   * jobs, and looks every second for a datastore that forgot the queue. A datastore refused as
   * unsafe is never used: the worker takes no job, and `ready()` rejects with its `DatastoreError`.
   */
  async #start(guard: DatastoreGuard, logger: Logger | undefined): Promise<void> {
    const stopped = this.#closing.signal;
    for (let failures = 0; ; failures++) {
      try {
        await guard.ready();
        break;
      } catch (error) {
        if (error instanceof DatastoreError) {
          logger?.error('MessagingWorker refused its datastore', { error: error.message });
          throw error;
        }
        if (failures === 0)
          logger?.warn('MessagingWorker: the datastore cannot be reached yet; trying again', { error: String(error) });
        await sleep(Math.min(1_000 * 2 ** failures, 30_000), stopped).catch(() => undefined);
        if (stopped.aborted) return;
      }
    }
    if (stopped.aborted) return;
    this.#worker
      .run()
      .catch((error: unknown) => logger?.error('bullmq worker stopped', { error: String(explained(error)) }));
    const look = () =>
      guard.check().catch((error: unknown) => {
        if (error instanceof DatastoreError)
          logger?.error('MessagingWorker: the datastore forgot the queue', { error: error.message });
      });
    this.#watch = setInterval(look, 1_000).unref();
  }

  /**
   * Resolves when the worker is connected and taking jobs. Rejects with a `DatastoreError` when
   * the datastore was refused (see `allowUnsafeDatastore`): the worker then takes no job.
   *
   * @example
   * ```ts
   * await worker.ready()
   * ```
   */
  async ready(): Promise<void> {
    await this.#started;
    await this.#worker.waitUntilReady();
  }

  /**
   * Stops taking jobs and waits for the jobs in progress to end (their sends finish and are
   * recorded), then closes the connections. Jobs not started stay queued for other workers.
   *
   * @example
   * ```ts
   * process.on('SIGTERM', async () => { await worker.close(); process.exit(0) })
   * ```
   */
  async close(): Promise<void> {
    this.#closing.abort();
    clearInterval(this.#watch);
    await this.#started.catch(() => undefined);
    await this.#worker.close();
    await this.#replication.close();
    await this.#updates.close();
    await this.#queue.close();
  }
}
