import type { Job, MinimalJob } from 'bullmq';
import { attempt, isDelivered, isGone, retryDelay } from '../webhooks/attempt.js';
import type { WebhookEndpoint } from '../webhooks/endpoints.js';
import { scrubbedText, shownUrl } from '../webhooks/shown-url.js';
import { RETENTION_DEFAULTS } from './checks.js';
import type { BullMQModule } from './load.js';
import { type Backend, makeQueue, makeWorker } from './store/backend.js';
import type { WebhookRelayOptions } from './webhook-types.js';

/** A delivery as the datastore keeps it: the event, signed afresh at each attempt. Never a secret, never a URL. */
export interface DeliveryJob {
  readonly v: 1;
  readonly webhookId: string;
  /** The event's JSON, exactly the bytes every attempt signs and sends. */
  readonly body: string;
}

/** How a delivery ended: the endpoint's status, or `disabled` when it was not made. */
type DeliveryResult = { readonly status: number } | { readonly skipped: 'disabled' };

/** One endpoint's deliveries: its queue, and this process's worker on it. */
export interface Deliveries {
  add(job: DeliveryJob): Promise<void>;
  ready(): Promise<void>;
  close(): Promise<void>;
}

const JOB_NAME = 'webhook';
/** The first retry's ceiling; each later one doubles, up to the longest. */
const FIRST_RETRY_MS = 5_000;
const LONGEST_WAIT_MS = 6 * 3_600_000;
/** BullMQ needs a count: `retryFor` is what ends the retries (the backoff answers -1 past it). */
const ATTEMPTS = 1_000_000;

export interface DeliveriesSettings {
  readonly queueName: string;
  /** The relayed queue's datastore: the deliveries live beside it. */
  readonly backend: Backend;
  readonly endpoint: WebhookEndpoint;
  readonly options: WebhookRelayOptions;
  /** Whether the endpoint answered 410 (to any relay of the queue). */
  readonly isDisabled: () => Promise<boolean>;
  readonly disable: () => Promise<void>;
}

/**
 * Opens an endpoint's queue of deliveries and a worker on it. Each endpoint has its own queue, so
 * that one that stalls (each attempt held to `timeout`) or fails holds only its own `concurrency`
 * slots, never another endpoint's deliveries, and never the messaging workers.
 */
export function openDeliveries(bull: BullMQModule, settings: DeliveriesSettings): Deliveries {
  const { queueName, backend, endpoint, options, isDisabled, disable } = settings;
  const { logger } = options;
  const timeout = options.timeout ?? 10_000;
  const retryFor = options.retryFor ?? 3 * 86_400_000;
  // Every log line shows the URL without its query, fragment or credentials, and every error text
  // is scrubbed of them: BullMQ's and the network's words are not ours, and may quote the URL.
  const url = shownUrl(endpoint.url);
  const clean = (error: unknown) => scrubbedText(error instanceof Error ? error.message : String(error), endpoint.url);
  const queue = makeQueue<DeliveryJob, DeliveryResult>(bull, queueName, backend);
  queue.on('error', (error) => logger?.error('webhook relay: datastore error', { url, error: clean(error) }));

  const processor = async (job: Job<DeliveryJob, DeliveryResult>): Promise<DeliveryResult> => {
    // Checked before every attempt, so that after a 410 at any relay nothing more is sent.
    if (await isDisabled()) return { skipped: 'disabled' };
    const outcome = await attempt(endpoint, job.data.webhookId, job.data.body, timeout);
    if (isDelivered(outcome)) return { status: outcome.status };
    if (isGone(outcome)) {
      await disable();
      logger?.warn('webhook endpoint answered 410 Gone: nothing more is sent to it until relay.enable(url)', { url });
      return { status: 410 };
    }
    // The reason stays with the job (BullMQ's failedReason and stack trace): a status, or a network
    // error that `attempt` scrubbed of the URL's query and credentials; never the secret.
    throw new Error('status' in outcome ? `the endpoint answered ${outcome.status}` : outcome.failure);
  };

  const worker = makeWorker<DeliveryJob, DeliveryResult>(bull, queueName, processor, backend, {
    concurrency: options.concurrency ?? 8,
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
  worker.on('failed', (job, error) => {
    // Emitted after every failed attempt; `finishedOn` is set only when BullMQ gave up.
    if (job?.finishedOn !== undefined) {
      logger?.warn('webhook delivery given up after retryFor', {
        url,
        webhookId: job.data.webhookId,
        error: clean(error),
      });
    }
  });
  worker.on('error', (error) => logger?.error('webhook relay: bullmq worker error', { url, error: clean(error) }));

  return {
    add: async (data) => {
      await queue.add(JOB_NAME, data, {
        jobId: data.webhookId,
        attempts: ATTEMPTS,
        backoff: { type: 'webhook' },
        // Kept a day once delivered: the job id is what makes re-reading an update add nothing.
        removeOnComplete: { age: RETENTION_DEFAULTS.sentSeconds },
        removeOnFail: { age: RETENTION_DEFAULTS.failedSeconds },
      });
    },
    ready: async () => {
      await worker.waitUntilReady();
    },
    close: async () => {
      await worker.close();
      await queue.close();
    },
  };
}
