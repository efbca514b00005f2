import type { JobsOptions, Queue } from 'bullmq';
import { ValidationError } from '../errors.js';
import type { SendMessageParams } from '../types/send.js';
import { checkJobId, checkOptionKeys, checkQueueOptions, checkRetention, OPTION_KEYS } from './checks.js';
import { loadBullmq } from './load.js';
import { logRepeats } from './log-repeats.js';
import { queueInternals } from './outbox/queue-internals.js';
import { checkQueueQuietHours, checkTiming, type Plan, planSend } from './schedule/plan.js';
import { SEND_JOB, type SendJobData, type SendJobResult } from './send/job-data.js';
import { storedParams } from './send/params.js';
import { next } from './send/states.js';
import { backendOf, explained, explaining, makeQueue } from './store/backend.js';
import { type DatastoreGuard, guarded } from './store/guard.js';
import { storeOf } from './store/store.js';
import type { Replication, ReplicaWait } from './store/types.js';
import { EVENTS_KEPT, type UpdateLog } from './store/update-log.js';
import type {
  EnqueueItem,
  EnqueueOptions,
  MessagingCounts,
  MessagingQueueOptions,
  MessagingUpdate,
  QuietHoursOptions,
  UpdatesOptions,
} from './types.js';
import { awaitReplicas } from './wait-for-replicas.js';

/** Jobs per `addBulk` call in `sendMany`: one round trip each, and a bounded command or statement. */
const BULK_CHUNK = 500;

/**
 * The producer side of the outbox (web servers): stores sends durably in Redis or PostgreSQL for the workers.
 *
 * @example
 * ```ts
 * const queue = new MessagingQueue({ connection: { host: '127.0.0.1', port: 6379 }, name: 'sms' })
 * await queue.send({ sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'Hi' }, { id: 'order-42' })
 * for await (const update of queue.updates()) console.log(update.id, update.status)
 * ```
 */
export class MessagingQueue {
  /** The queue's name. */
  readonly name: string;
  readonly #queue: Queue<SendJobData, SendJobResult>;
  readonly #updates: UpdateLog;
  readonly #jobOptions: JobsOptions;
  readonly #guard: DatastoreGuard;
  /** A guard of its own for each reader: a loss is reported to each that saw the queue before it. */
  readonly #readerGuard: () => DatastoreGuard;
  readonly #replication: Replication;
  /** `waitForReplicas` with its defaults, when asked. */
  readonly #wait: ReplicaWait | undefined;
  /** Where readers from `updates()` start, still being read: this queue's sends wait for them. */
  readonly #positions = new Set<Promise<unknown>>();
  /** The queue's quiet hours, for sends that do not give their own. */
  readonly #quietHours: QuietHoursOptions | undefined;

  constructor(options: MessagingQueueOptions) {
    this.#wait = checkQueueOptions(options);
    this.#quietHours = checkQueueQuietHours(options.quietHours);
    const retention = checkRetention(options.retention);
    const bull = loadBullmq();
    const backend = backendOf(bull, options.connection, options.prefix);
    this.name = options.name;
    this.#queue = makeQueue<SendJobData, SendJobResult>(bull, options.name, backend, {
      streams: { events: { maxLen: EVENTS_KEPT } },
    });
    const store = storeOf(bull, backend, this.#queue);
    this.#updates = store.updates();
    this.#guard = store.guard(options);
    this.#readerGuard = () => store.guard(options);
    this.#replication = store.replication(options);
    queueInternals.set(this, {
      addStored: async (jobs) => {
        await explaining(
          this.#queue.addBulk(
            jobs.map(({ id, data }) => ({ name: SEND_JOB, data, opts: { ...this.#jobOptions, jobId: id } })),
          ),
        );
        await this.#stored(jobs.map((job) => job.id));
      },
    });
    // The datastore's connection errors also reach each call that fails (send, counts...); without
    // a listener BullMQ's emitter would print them, or throw an unhandled 'error' event. Logged
    // once per kind, with a count.
    const logError = logRepeats(options.logger, 'bullmq queue error');
    this.#queue.on('error', (error) => logError(String(explained(error))));
    this.#jobOptions = {
      attempts: options.attempts ?? 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: retention.sentSeconds },
      // `failed` and `unknown` share BullMQ's failed set, which has one age.
      removeOnFail: { age: Math.max(retention.failedSeconds, retention.unknownSeconds) },
    };
  }

  /**
   * Checks `params` exactly as `messages.send` does and stores the send; resolves with its job id.
   * With `id`, enqueueing is idempotent: the same id enqueued again (while its job is kept) is not
   * stored again and sends once.
   *
   * @example
   * ```ts
   * const id = await queue.send({ sender_phone, to_phone, type: 'text', content: 'Hi' }, { id: 'order-42' })
   * ```
   */
  async send(params: SendMessageParams, options: EnqueueOptions = {}): Promise<string> {
    checkOptionKeys(options, OPTION_KEYS.enqueue, 'Invalid enqueue options');
    const jobId = checkJobId(options?.id);
    const timing = checkTiming(options, this.#quietHours);
    const stored = await storedParams(params);
    const plan = await planSend(stored, timing, Date.now());
    await this.#positionsFixed();
    await this.#guard.check();
    const job = await explaining(this.#queue.add(SEND_JOB, jobData(stored, plan), this.#optionsOf(jobId, plan)));
    const id = String(job.id);
    await this.#stored([id]);
    await this.#announce(id, plan);
    return id;
  }

  /** A job's options: the queue's, its id, and its delay when it may not start at once. */
  #optionsOf(jobId: string | undefined, plan: Plan): JobsOptions {
    return { ...this.#jobOptions, ...(jobId ? { jobId } : {}), ...(plan.delay > 0 ? { delay: plan.delay } : {}) };
  }

  /** Tells `updates()` why a send just stored waits: `scheduled` or `quiet-hours`, and until when. */
  async #announce(id: string, plan: Plan): Promise<void> {
    const { announce } = plan;
    if (announce)
      await this.#updates.publish({ id, status: announce.status, until: new Date(announce.until).toISOString() });
  }

  /**
   * Takes back a send that has not gone yet (scheduled, held by quiet hours or a lane, or waiting
   * for a worker): resolves `true` when it was still waiting and now never will be sent, and
   * `updates()` reports `cancelled`. Resolves `false` when it is being sent or was sent, ended,
   * or is not kept (unknown id). A job a worker has taken cannot be removed, and a removed one
   * cannot be taken; one narrow case is left: a worker that takes the job and sends it whole
   * between this call's read of the job and its removal (two round trips). Its id is then free:
   * the same id enqueued again is a new send.
   *
   * @example
   * ```ts
   * await queue.send(params, { id: 'reminder-42', sendAt: tomorrowAtNine })
   * if (await queue.cancel('reminder-42')) console.log('it will not be sent')
   * ```
   */
  async cancel(id: string): Promise<boolean> {
    const jobId = checkJobId(id, 'id') as string;
    await this.#guard.check();
    const job = await explaining(this.#queue.getJob(jobId));
    // Only a send that was never POSTed: `queued` (a retry after a refused connection is too).
    if (job?.data.phase !== 'queued') return false;
    try {
      await job.remove();
    } catch (error) {
      // Taken by a worker between the look and the removal: it is being sent.
      if (/locked|could not be removed/i.test(String((error as Error)?.message))) return false;
      throw explained(error);
    }
    await this.#updates.publish({ id: jobId, status: 'cancelled' });
    return true;
  }

  /**
   * A reader's start, fixed at its `updates()` call, is read from the datastore: a send made right
   * after the call, by the same queue, waits until it is known, so that the reader sees every
   * update of that send (a worker could otherwise publish `sent` before the start was read, and
   * a reader from `now` would begin after it; seen on PostgreSQL beside two CPU hogs).
   */
  async #positionsFixed(): Promise<void> {
    if (this.#positions.size > 0) await Promise.allSettled([...this.#positions]);
  }

  /**
   * Sends just stored: watched until the replicas hold them (a failover that rolls them back is
   * reported), and with `waitForReplicas`, awaited on the replicas.
   */
  async #stored(ids: readonly string[]): Promise<void> {
    this.#replication.enqueued(ids);
    if (this.#wait) await awaitReplicas(this.#replication, this.name, ids, this.#wait);
  }

  /**
   * Enqueues many sends with `addBulk`, in chunks of 500. Every item of a chunk is checked
   * before the chunk is stored; a bad item throws a `ValidationError` naming its index, and the
   * chunks before it stay enqueued. Items are send parameters, or `{ params, id }`.
   *
   * @example
   * ```ts
   * const ids = await queue.sendMany(orders.map((o) => ({ params: smsFor(o), id: `order-${o.id}` })))
   * ```
   */
  async sendMany(
    items: Iterable<SendMessageParams | EnqueueItem> | AsyncIterable<SendMessageParams | EnqueueItem>,
  ): Promise<string[]> {
    const ids: string[] = [];
    let chunk: { name: string; data: SendJobData; opts: JobsOptions }[] = [];
    let plans: Plan[] = [];
    const flush = async () => {
      await this.#positionsFixed();
      await this.#guard.check();
      const jobs = await explaining(this.#queue.addBulk(chunk));
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
        const timing = checkTiming(options, this.#quietHours);
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

  /**
   * What happens to the sends, from any worker on any machine: `sent`, `failed`, `unknown`, then
   * `delivered`/`read`/`delivery-timeout` when workers track delivery. Reads the queue's event log
   * in the datastore (on Redis a blocking read on its own connection, on PostgreSQL a poll of a
   * table every 100 ms; either ends when the iteration ends).
   *
   * Delivery is at least once per status: a worker killed after publishing an update and before
   * recording it publishes it again when the job is re-run (a crash between a send's acceptance and
   * its `sent` update re-publishes `sent`, so that it is never lost), and a reader resuming with
   * `{ from: lastUpdate.eventId }` after a restart may see the last ones again. Key what you do by
   * `update.id` and `update.status` (e.g. an upsert), never by counting updates.
   *
   * @example
   * ```ts
   * for await (const update of queue.updates({ signal })) {
   *   if (update.status === 'unknown') await reviewLater(update.id)
   * }
   * ```
   */
  updates(options: UpdatesOptions = {}): AsyncIterable<MessagingUpdate> {
    checkOptionKeys(options, OPTION_KEYS.updates, 'Invalid updates options');
    // Where reading starts is fixed now, at the call, even if the iteration starts later.
    const position = this.#updates.position(options.from);
    position.catch(() => undefined); // the iteration reports it; one never started must not leave it unhandled
    this.#positions.add(position);
    const settled = () => this.#positions.delete(position);
    position.then(settled, settled);
    const log = this.#updates;
    const makeGuard = this.#readerGuard;
    return {
      async *[Symbol.asyncIterator]() {
        const guard = makeGuard();
        try {
          await guard.ready();
          const from = await position;
          yield* guarded((signal) => log.read(from, signal), guard, options.signal);
        } finally {
          guard.close();
        }
      },
    };
  }

  /**
   * Sends by state across the fleet. Reads BullMQ's counts, plus the data of the delayed and
   * failed jobs to tell tracking from retrying and `unknown` from `failed`: its cost grows with those.
   *
   * @example
   * ```ts
   * const { waiting, unknown } = await queue.counts()
   * ```
   */
  async counts(): Promise<MessagingCounts> {
    await this.#guard.check();
    const counts = await this.#queue.getJobCounts('wait', 'prioritized', 'active', 'completed');
    const delayed = await this.#queue.getJobs(['delayed']);
    const failed = await this.#queue.getJobs(['failed']);
    const tracking = delayed.filter((job) => job.data.phase === 'tracking').length;
    const unknown = failed.filter((job) => job.data.phase === 'unknown').length;
    return {
      waiting: (counts['wait'] ?? 0) + (counts['prioritized'] ?? 0) + delayed.length - tracking,
      active: counts['active'] ?? 0,
      sent: counts['completed'] ?? 0,
      failed: failed.length - unknown,
      unknown,
      tracking,
    };
  }

  /**
   * Sends a send that ended `unknown` (or `failed`) again: the explicit decision the queue never
   * takes alone, because the first send may have reached the recipient. Logged on the job
   * (BullMQ job log) with the time and count.
   *
   * @example
   * ```ts
   * for await (const u of queue.updates()) if (u.status === 'unknown' && (await notInCrm(u.id))) await queue.resend(u.id)
   * ```
   */
  async resend(id: string): Promise<void> {
    const jobId = checkJobId(id, 'id') as string;
    const job = await this.#queue.getJob(jobId);
    const phase = job?.data.phase;
    if (!job || (phase !== 'unknown' && phase !== 'failed')) {
      throw new ValidationError('Invalid resend', [
        {
          path: 'id',
          message: job
            ? `send '${jobId}' is '${phase}', not 'unknown' or 'failed': only a send that ended may be sent again`
            : `no send '${jobId}' is kept in queue '${this.name}' (it never existed, or its retention passed)`,
        },
      ]);
    }
    const resends = (job.data.resends ?? 0) + 1;
    const { error: _previous, ...data } = job.data;
    await job.updateData({ ...data, phase: next(phase, 'resend'), resends });
    await job.log(`resend #${resends} at ${new Date().toISOString()} after '${phase}'`);
    await job.retry('failed');
  }

  /**
   * Closes the queue's connections, and the `updates()` readers still open. Jobs stay stored.
   *
   * @example
   * ```ts
   * await queue.close()
   * ```
   */
  async close(): Promise<void> {
    await this.#replication.close();
    await this.#updates.close();
    await this.#queue.close();
  }
}

function isEnqueueItem(item: SendMessageParams | EnqueueItem): item is EnqueueItem {
  return typeof item === 'object' && item !== null && 'params' in item;
}

function jobData(params: SendJobData['params'], plan: Plan): SendJobData {
  return { v: 1, params, phase: 'queued', ...(plan.quiet ? { quiet: plan.quiet } : {}) };
}
