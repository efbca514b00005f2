import type { JobsOptions, Queue } from 'bullmq';
import type { SendMessageParams } from '../../index.js';
import { ValidationError } from '../../index.js';
import { checkJobId, checkOptionKeys, OPTION_KEYS } from '../checks.js';
import { checkTiming, type Plan, planSend } from '../schedule/plan.js';
import { SEND_JOB, type SendJobData, type SendJobResult } from '../send/job-data.js';
import { storedParams } from '../send/params.js';
import { explaining } from '../store/backend.js';
import type { DatastoreGuard } from '../store/guard.js';
import type { Replication, ReplicaWait } from '../store/types.js';
import type { UpdateLog } from '../store/update-log.js';
import type { EnqueueItem, EnqueueOptions, QuietHoursOptions } from '../types.js';
import type { UpdateReaders } from './update-readers.js';
import { awaitReplicas } from './wait-for-replicas.js';

/** Jobs per `addBulk` call in `sendMany`: one round trip each, and a bounded command or statement. */
const BULK_CHUNK = 500;

/** What storing sends needs of its queue. */
export interface EnqueueParts {
  /** The queue's name. */
  readonly name: string;
  readonly queue: Queue<SendJobData, SendJobResult>;
  /** Every job's options: attempts, backoff, retention. */
  readonly jobOptions: JobsOptions;
  readonly guard: DatastoreGuard;
  /** Where `scheduled` and `quiet-hours` are announced. */
  readonly updates: UpdateLog;
  /** The `updates()` readers whose start a send waits for. */
  readonly readers: UpdateReaders;
  readonly replication: Replication;
  /** `waitForReplicas` with its defaults, when asked. */
  readonly wait: ReplicaWait | undefined;
  /** The queue's quiet hours, for sends that do not give their own. */
  readonly quietHours: QuietHoursOptions | undefined;
}

/**
 * How the outbox's relay adds sends it already checked and stored (in its table), each with its
 * job id: the one thing it needs of a queue beyond its public surface (`storedSendAdder`).
 */
export interface StoredSendAdder {
  /** Adds the jobs (ids given); a job id already in the queue is not added again (BullMQ). */
  addStored(jobs: readonly { readonly id: string; readonly data: SendJobData }[]): Promise<void>;
}

/**
 * How sends are stored: each checked as `messages.send` checks it and planned (`sendAt`, quiet
 * hours), stored as a job, watched until the replicas hold it, and announced when it waits. Also
 * what the outbox's relay adds (sends it already checked and stored).
 */
export class Enqueuer implements StoredSendAdder {
  readonly #parts: EnqueueParts;

  constructor(parts: EnqueueParts) {
    this.#parts = parts;
  }

  /** `queue.send`: one send stored; resolves with its job id. */
  async send(params: SendMessageParams, options: EnqueueOptions): Promise<string> {
    const { queue, guard, readers, quietHours } = this.#parts;
    checkOptionKeys(options, OPTION_KEYS.enqueue, 'Invalid enqueue options');
    const jobId = checkJobId(options?.id);
    const timing = checkTiming(options, quietHours);
    const stored = await storedParams(params);
    const plan = await planSend(stored, timing, Date.now());
    await readers.positionsFixed();
    await guard.check();
    const job = await explaining(queue.add(SEND_JOB, jobData(stored, plan), this.#optionsOf(jobId, plan)));
    const id = String(job.id);
    await this.#stored([id]);
    await this.#announce(id, plan);
    return id;
  }

  /** `queue.sendMany`: chunks of `BULK_CHUNK` sends, each item checked before its chunk is stored. */
  async sendMany(
    items: Iterable<SendMessageParams | EnqueueItem> | AsyncIterable<SendMessageParams | EnqueueItem>,
  ): Promise<string[]> {
    const { queue, guard, readers, quietHours } = this.#parts;
    const ids: string[] = [];
    let chunk: { name: string; data: SendJobData; opts: JobsOptions }[] = [];
    let plans: Plan[] = [];
    const flush = async () => {
      await readers.positionsFixed();
      await guard.check();
      const jobs = await explaining(queue.addBulk(chunk));
      chunk = [];
      const stored = jobs.map((job) => String(job.id));
      await this.#stored(stored);
      for (const [i, id] of stored.entries()) await this.#announce(id, plans[i] as Plan);
      plans = [];
      ids.push(...stored);
    };
    let index = 0;
    for await (const item of items) {
      const { params, ...options } = isEnqueueItem(item) ? item : { params: item };
      try {
        checkOptionKeys(options, OPTION_KEYS.enqueue, 'Invalid enqueue options');
        const jobId = checkJobId(options.id, 'id');
        const timing = checkTiming(options, quietHours);
        const stored = await storedParams(params);
        const plan = await planSend(stored, timing, Date.now());
        chunk.push({ name: SEND_JOB, data: jobData(stored, plan), opts: this.#optionsOf(jobId, plan) });
        plans.push(plan);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        throw new ValidationError(
          `Invalid item ${index} of sendMany (${ids.length} sends before it were enqueued)`,
          error.issues,
          {
            cause: error,
          },
        );
      }
      index++;
      if (chunk.length >= BULK_CHUNK) await flush();
    }
    if (chunk.length > 0) await flush();
    return ids;
  }

  /** The outbox relay's sends, already checked and stored: added with their ids (an id already in the queue is not added again). */
  async addStored(jobs: readonly { readonly id: string; readonly data: SendJobData }[]): Promise<void> {
    const { queue, jobOptions } = this.#parts;
    await explaining(
      queue.addBulk(jobs.map(({ id, data }) => ({ name: SEND_JOB, data, opts: { ...jobOptions, jobId: id } }))),
    );
    await this.#stored(jobs.map((job) => job.id));
  }

  /** A job's options: the queue's, its id, and its delay when it may not start at once. */
  #optionsOf(jobId: string | undefined, plan: Plan): JobsOptions {
    return { ...this.#parts.jobOptions, ...(jobId ? { jobId } : {}), ...(plan.delay > 0 ? { delay: plan.delay } : {}) };
  }

  /** Tells `updates()` why a send just stored waits: `scheduled` or `quiet-hours`, and until when. */
  async #announce(id: string, plan: Plan): Promise<void> {
    const { announce } = plan;
    if (announce)
      await this.#parts.updates.publish({ id, status: announce.status, until: new Date(announce.until).toISOString() });
  }

  /**
   * Sends just stored: watched until the replicas hold them (a failover that rolls them back is
   * reported), and with `waitForReplicas`, awaited on the replicas.
   */
  async #stored(ids: readonly string[]): Promise<void> {
    const { replication, wait, name } = this.#parts;
    replication.enqueued(ids);
    if (wait) await awaitReplicas(replication, name, ids, wait);
  }
}

function isEnqueueItem(item: SendMessageParams | EnqueueItem): item is EnqueueItem {
  return typeof item === 'object' && item !== null && 'params' in item;
}

function jobData(params: SendJobData['params'], plan: Plan): SendJobData {
  return {
    v: 1,
    params,
    phase: 'queued',
    ...(plan.quiet ? { quiet: plan.quiet } : {}),
    ...(plan.recipient === undefined ? {} : { recipient: plan.recipient }),
  };
}
