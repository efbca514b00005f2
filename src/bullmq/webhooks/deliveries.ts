import type { Job, MinimalJob } from 'bullmq';
import { sleep } from '../../seam/timing.js';
import { attempt, isDelivered, isGone, retryDelay, scrubbedText, shownUrl } from '../../seam/webhook-delivery.js';
import type { WebhookEndpoint } from '../../webhooks/index.js';
import { RETENTION_DEFAULTS } from '../checks.js';
import type { BullMQModule } from '../load.js';
import { logRepeats } from '../log-repeats.js';
import { type Backend, makeQueue, makeWorker } from '../store/backend.js';
import { CLOSE_MS, settlesWithin } from './close.js';
import { AttemptPool, bounceDelay, EndpointSlots } from './slots.js';
import type { WebhookRelayOptions } from './types.js';

/**
 * A delivery as the datastore keeps it: the event for one endpoint, signed afresh at each attempt.
 * Never a secret, never a URL: the endpoint is named by a hash of its URL.
 */
export interface DeliveryJob {
  /** 2: every endpoint's deliveries in one queue. (1: a queue per endpoint, see webhook-legacy.ts.) */
  readonly v: 2;
  /** The endpoint's key: a hash of its URL (`endpointKey`). */
  readonly endpoint: string;
  readonly webhookId: string;
  /** The event's JSON, exactly the bytes every attempt signs and sends. */
  readonly body: string;
}

/** A delivery to queue, and when it was first queued (a delivery moved from a queue of 0.x). */
export interface NewDelivery {
  readonly data: DeliveryJob;
  /** Where `retryFor` counts from. @default now */
  readonly queuedAt?: number;
}

/** How a delivery ended: the endpoint's status, or `disabled` when it was not made. */
type DeliveryResult = { readonly status: number } | { readonly skipped: 'disabled' };

/** An endpoint of this relay, by its key. */
export interface Target {
  readonly endpoint: WebhookEndpoint;
  /** A hash of its URL: names its deliveries and its disabled mark, so that neither holds the URL. */
  readonly key: string;
}

/** Every endpoint's deliveries: one queue, and this process's worker on it. */
export interface Deliveries {
  /** Queues deliveries; one still kept (a day once made) under the same id is not added again. */
  add(deliveries: readonly NewDelivery[]): Promise<void>;
  ready(): Promise<void>;
  /**
   * Stops taking deliveries, lets the attempts in progress end (each within `timeout`) and be
   * recorded, then closes the worker and the queue: within `timeout` + 4 s while an attempt is in
   * flight, 4 s otherwise, whatever the datastore does.
   */
  close(): Promise<void>;
}

export interface DeliveriesSettings {
  readonly queueName: string;
  /** The relayed queue's datastore: the deliveries live beside it. */
  readonly backend: Backend;
  readonly targets: ReadonlyMap<string, Target>;
  readonly options: WebhookRelayOptions;
  /** Whether the endpoint answered 410 (to any relay of the queue). */
  readonly isDisabled: (key: string) => Promise<boolean>;
  readonly disable: (key: string) => Promise<void>;
  /** A text from elsewhere (BullMQ, the network) cleaned of every endpoint URL's hidden parts. */
  readonly scrub: (text: string) => string;
}

/** The job id of a delivery: its `webhook-id` at its endpoint, so reading an update again adds nothing. */
export const deliveryJobId = (data: Pick<DeliveryJob, 'webhookId' | 'endpoint'>): string =>
  `${data.webhookId}@${data.endpoint}`;

const JOB_NAME = 'webhook';
/** The first retry's ceiling; each later one doubles, up to the longest. */
const FIRST_RETRY_MS = 5_000;
const LONGEST_WAIT_MS = 6 * 3_600_000;
/** BullMQ needs a count: `retryFor` is what ends the retries (the backoff answers -1 past it). */
const ATTEMPTS = 1_000_000;
/** The longest wait of a delivery whose endpoint this relay does not have (another relay may). */
const FOREIGN_LONGEST_MS = 60_000;
/** Attempts a relay process starts at once, every endpoint together: its pool's young places. */
export const ATTEMPTS_AT_ONCE = 128;
/**
 * Attempts that have run for PARK_AFTER_MS, parked so that their young places go to other
 * deliveries. With the young places, what a relay process has in flight at most: 640 requests
 * and sockets, under the usual limit of 1,024 open files.
 */
export const PARKED_AT_ONCE = 512;
/** After this long an attempt is parked: it keeps its endpoint's slot, and gives its young place back. */
export const PARK_AFTER_MS = 1_000;

/** How long a closing relay gives the datastore to record the end of the jobs in progress. */
const RECORD_MS = 2_000;
/** How long no job must be in progress before a paused worker is taken to have none coming. */
const QUIET_MS = 100;

/**
 * Resolves once the paused worker has nothing in progress, or `ms` passed: when its main loop ended
 * (every job's end recorded), or when no job was in progress for QUIET_MS (BullMQ may still finish
 * a fetch it had under way when paused, so one quiet instant is not enough).
 */
async function settled(worker: { isRunning(): boolean }, inProgress: ReadonlySet<string>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  let quietSince = Date.now();
  while (worker.isRunning() && Date.now() < deadline) {
    if (inProgress.size > 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= QUIET_MS) return;
    await sleep(Math.min(25, QUIET_MS));
  }
}

/**
 * Opens the queue of deliveries, `<name>.webhook-deliveries`, and a worker on it for every endpoint.
 *
 * What a delivery holds, and why one stalling or failing endpoint never holds another's:
 * - a slot of its own endpoint's share (`concurrency`, counted in this process: EndpointSlots). A
 *   job whose endpoint has no free slot is put back at once, delayed (BullMQ's `moveToDelayed`,
 *   then `DelayedError`, which counts no attempt), so every endpoint holds at most `concurrency`
 *   of the worker's slots, whatever it does. The worker has endpoints × concurrency slots: when
 *   every other endpoint holds its whole share, a healthy endpoint's share is still free. A slot
 *   costs nothing until a job is in it: BullMQ fetches jobs only as they come;
 * - a place in the process's pool (AttemptPool), which bounds what the process has in flight
 *   (requests, sockets, answers: ATTEMPTS_AT_ONCE + PARKED_AT_ONCE) whatever the number of
 *   endpoints. Deliveries wait for a young place in memory, in order; an attempt gives its young
 *   place back when it ends or, parked, after PARK_AFTER_MS. So a stalling endpoint's attempts
 *   (held to `timeout`) keep their own endpoint's slots, and delay no other endpoint's delivery by
 *   more than PARK_AFTER_MS while fewer than PARKED_AT_ONCE attempts are parked (64 endpoints
 *   stalling with all 8 of their slots at once); beyond that, by one `timeout` at most;
 * - nothing between attempts: a failing endpoint's retries wait in the datastore's delayed set.
 */
export function openDeliveries(bull: BullMQModule, settings: DeliveriesSettings): Deliveries {
  const { queueName, backend, targets, options, isDisabled, disable, scrub } = settings;
  const { logger } = options;
  const timeout = options.timeout ?? 10_000;
  const retryFor = options.retryFor ?? 3 * 86_400_000;
  const cap = options.concurrency ?? 8;
  const slots = new EndpointSlots(cap);
  const pool = new AttemptPool(ATTEMPTS_AT_ONCE, PARKED_AT_ONCE, PARK_AFTER_MS);
  // The jobs in progress, from the processor's start until their end is recorded (BullMQ's
  // 'completed' or 'failed', or the processor's own write for a job it put back): what close() waits for.
  const inProgress = new Set<string>();
  // A delivery put back waits at most about one attempt's time (and 1 to 10 s) before looking again.
  const ownLongest = Math.max(1_000, Math.min(timeout, 10_000));
  const text = (error: unknown) => scrub(error instanceof Error ? error.message : String(error));
  const shown = (key: string) => {
    const target = targets.get(key);
    return target ? { url: shownUrl(target.endpoint.url) } : { endpoint: key };
  };
  // A delivery's failure can quote only its own endpoint's URL: one scrub, not one per endpoint.
  const textOf = (key: string, error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    const target = targets.get(key);
    return target ? scrubbedText(message, target.endpoint.url) : message;
  };
  const queue = makeQueue<DeliveryJob, DeliveryResult>(bull, queueName, backend);
  const datastoreError = logRepeats(logger, 'webhook relay: datastore error');
  queue.on('error', (error) => datastoreError(text(error)));

  const putBack = async (job: Job<DeliveryJob, DeliveryResult>, token: string | undefined, longest: number) => {
    // attemptsStarted counts every time the job was taken; attemptsMade only its real attempts.
    const bounces = Math.max(1, job.attemptsStarted - job.attemptsMade);
    await job.moveToDelayed(Date.now() + bounceDelay(bounces, longest), token);
    inProgress.delete(job.id as string); // recorded: BullMQ emits no event for a job put back
    throw new bull.DelayedError();
  };

  const processor = async (
    job: Job<DeliveryJob, DeliveryResult>,
    token?: string,
    signal?: AbortSignal,
  ): Promise<DeliveryResult> => {
    inProgress.add(job.id as string);
    const { endpoint: key, webhookId, body } = job.data;
    const target = targets.get(key);
    if (!target) {
      // Queued by a relay of the queue that has an endpoint this one lacks (a configuration being
      // rolled out, or an endpoint removed): left to the relays that have it, until retryFor.
      if (Date.now() > job.timestamp + retryFor) {
        throw new bull.UnrecoverableError('no relay of the queue has this endpoint: given up after retryFor');
      }
      return putBack(job, token, FOREIGN_LONGEST_MS);
    }
    if (!slots.take(key)) return putBack(job, token, ownLongest);
    const giveBack = await pool.acquire().catch(() => undefined);
    try {
      if (!giveBack) {
        // The relay is closing: the delivery goes back to the queue as it was, for the next relay.
        await job.moveToWait(token);
        inProgress.delete(job.id as string);
        throw new bull.WaitingError();
      }
      // Checked right before every attempt, so that after a 410 at any relay nothing more is sent.
      if (await isDisabled(key)) return { skipped: 'disabled' };
      const outcome = await attempt(target.endpoint, webhookId, body, timeout, signal);
      if (isDelivered(outcome)) return { status: outcome.status };
      if (isGone(outcome)) {
        await disable(key);
        logger?.warn('webhook endpoint answered 410 Gone: nothing more is sent to it until relay.enable(url)', {
          url: shownUrl(target.endpoint.url),
        });
        return { status: 410 };
      }
      // The reason stays with the job (BullMQ's failedReason and stack trace): a status, or a network
      // error that `attempt` scrubbed of the URL's query and credentials; never the secret.
      throw new Error('status' in outcome ? `the endpoint answered ${outcome.status}` : outcome.failure);
    } finally {
      giveBack?.();
      slots.release(key);
    }
  };

  const worker = makeWorker<DeliveryJob, DeliveryResult>(bull, queueName, processor, backend, {
    concurrency: Math.max(1, targets.size * cap),
    ...(options.lockDuration === undefined ? {} : { lockDuration: options.lockDuration }),
    ...(options.stalledInterval === undefined ? {} : { stalledInterval: options.stalledInterval }),
    // A delivery whose relay died is made again, however often that happens: it is never dropped for it.
    maxStalledCount: 1_000,
    settings: {
      backoffStrategy: (attemptsMade: number, _type?: string, _error?: Error, job?: MinimalJob) => {
        const wait = retryDelay(attemptsMade, FIRST_RETRY_MS, LONGEST_WAIT_MS);
        // -1 tells BullMQ to stop: the job then ends failed, kept for inspection.
        return job && Date.now() + wait > job.timestamp + retryFor ? -1 : wait;
      },
    },
  });
  worker.on('completed', (job) => inProgress.delete(job.id as string));
  worker.on('failed', (job, error) => {
    if (job) inProgress.delete(job.id as string);
    // Emitted after every failed attempt; `finishedOn` is set only when BullMQ gave up.
    if (job?.finishedOn !== undefined) {
      logger?.warn('webhook delivery given up after retryFor', {
        ...shown(job.data.endpoint),
        webhookId: job.data.webhookId,
        error: textOf(job.data.endpoint, error),
      });
    }
  });
  const workerError = logRepeats(logger, 'webhook relay: bullmq worker error');
  worker.on('error', (error) => workerError(text(error)));

  return {
    add: async (deliveries) => {
      if (deliveries.length === 0) return;
      await queue.addBulk(
        deliveries.map(({ data, queuedAt }) => ({
          name: JOB_NAME,
          data,
          opts: {
            jobId: deliveryJobId(data),
            attempts: ATTEMPTS,
            backoff: { type: 'webhook' },
            // Kept a day once delivered: the job id is what makes re-reading an update add nothing.
            removeOnComplete: { age: RETENTION_DEFAULTS.sentSeconds },
            removeOnFail: { age: RETENTION_DEFAULTS.failedSeconds },
            ...(queuedAt === undefined ? {} : { timestamp: queuedAt }),
          },
        })),
      );
    },
    ready: async () => {
      await Promise.all([worker.waitUntilReady(), queue.waitUntilReady()]);
    },
    close: async () => {
      // Not BullMQ's graceful close() nor pause(): both wait for the blocking connection's 'end',
      // which never comes while it is between two reconnection attempts (the datastore killed or
      // unreachable), and close() keeps its lock-renewal timer meanwhile. So: stop taking jobs
      // (pause(true) waits for nothing), send the deliveries waiting for a place back to the queue,
      // let the jobs in progress end and be recorded, within a bound; then close(true) stops every
      // timer and drops the connections at once. A job whose end could not be recorded in time
      // (the datastore gone) is made again by another relay after lockDuration + stalledInterval.
      void worker.pause(true).catch(() => undefined);
      pool.close(new Error('the relay is closing'));
      await settled(worker, inProgress, (slots.total > 0 ? timeout : 0) + RECORD_MS);
      await settlesWithin(worker.close(true), CLOSE_MS);
      // A queue that cannot close gracefully in time is torn down with the others (webhook-backends.ts).
      await settlesWithin(queue.close(), CLOSE_MS);
    },
  };
}
