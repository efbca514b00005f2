import type { Queue } from 'bullmq';
import type { SendMessageParams } from '../../index.js';
import { checkOptionKeys, checkQueueOptions, checkRetention, OPTION_KEYS } from '../checks.js';
import { loadBullmq } from '../load.js';
import { logRepeats } from '../log-repeats.js';
import { checkQueueQuietHours } from '../schedule/plan.js';
import type { SendJobData, SendJobResult } from '../send/job-data.js';
import { backendOf, explained, makeQueue } from '../store/backend.js';
import type { DatastoreGuard } from '../store/guard.js';
import { storeOf } from '../store/store.js';
import type { Replication } from '../store/types.js';
import { EVENTS_KEPT, type UpdateLog } from '../store/update-log.js';
import type {
  EnqueueItem,
  EnqueueOptions,
  MessagingCounts,
  MessagingQueueOptions,
  MessagingUpdate,
  UpdatesOptions,
} from '../types.js';
import { cancelSend, resendSend } from './cancel-resend.js';
import { Enqueuer, type StoredSendAdder } from './enqueue.js';
import { UpdateReaders } from './update-readers.js';

/** Set by `MessagingQueue`'s static block: the one function that reads a queue's enqueuer from outside it. */
let enqueuerOf: (queue: object) => StoredSendAdder | undefined = () => undefined;

/**
 * How `MessagingOutbox` adds its relayed sends to `queue`: the queue's own enqueuer (so they are
 * watched until the replicas hold them, as its sends are); `undefined` when `queue` is not a
 * `MessagingQueue`. Internal to the entry (index.ts does not export it): not a public member.
 */
export function storedSendAdder(queue: unknown): StoredSendAdder | undefined {
  return typeof queue === 'object' && queue !== null ? enqueuerOf(queue) : undefined;
}

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
  readonly #guard: DatastoreGuard;
  readonly #replication: Replication;
  /** The `updates()` readers, and where each starts. */
  readonly #readers: UpdateReaders;
  /** How sends are checked, planned and stored (enqueue.ts). */
  readonly #enqueuer: Enqueuer;

  static {
    // A brand check, so that an object that only looks like a queue is refused, not read.
    enqueuerOf = (queue) => (#enqueuer in queue ? queue.#enqueuer : undefined);
  }

  constructor(options: MessagingQueueOptions) {
    const wait = checkQueueOptions(options);
    const quietHours = checkQueueQuietHours(options.quietHours);
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
    // A guard of its own for each reader: a loss is reported to each that saw the queue before it.
    this.#readers = new UpdateReaders(this.#updates, () => store.guard(options));
    this.#replication = store.replication(options);
    this.#enqueuer = new Enqueuer({
      name: this.name,
      queue: this.#queue,
      jobOptions: {
        attempts: options.attempts ?? 5,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: retention.sentSeconds },
        // `failed` and `unknown` share BullMQ's failed set, which has one age.
        removeOnFail: { age: Math.max(retention.failedSeconds, retention.unknownSeconds) },
      },
      guard: this.#guard,
      updates: this.#updates,
      readers: this.#readers,
      replication: this.#replication,
      wait,
      quietHours,
    });
    // The datastore's connection errors also reach each call that fails (send, counts...); without
    // a listener BullMQ's emitter would print them, or throw an unhandled 'error' event. Logged
    // once per kind, with a count.
    const logError = logRepeats(options.logger, 'bullmq queue error');
    this.#queue.on('error', (error) => logError(String(explained(error))));
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
    return this.#enqueuer.send(params, options);
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
    return cancelSend(this.#queue, this.#guard, this.#updates, id);
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
    return this.#enqueuer.sendMany(items);
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
    return this.#readers.open(options);
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
    return resendSend(this.#queue, this.name, id);
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
