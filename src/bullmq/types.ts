/**
 * The public types of `tenant-messaging/bullmq`. Like every file of types, this imports no
 * implementation module.
 */
import type { ConnectionOptions, PostgresConnectionOptions } from 'bullmq';
import type { Logger, MessageLog } from '../index.js';

/**
 * Where the queue lives: Redis (ioredis options such as `{ host, port }`, or an ioredis instance,
 * as BullMQ takes them) or PostgreSQL (`{ postgres: ... }`, BullMQ 6's PostgreSQL backend).
 *
 * @example
 * ```ts
 * const redis: QueueConnection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null }
 * const postgres: QueueConnection = { postgres: { connectionString: process.env.DATABASE_URL, max: 4 } }
 * ```
 */
export type QueueConnection = ConnectionOptions | PostgresQueueConnection;

/**
 * A queue in PostgreSQL, with BullMQ's PostgreSQL backend (README, "Choosing a backend").
 *
 * @example
 * ```ts
 * new MessagingQueue({ connection: { postgres: 'postgres://app@db/app' }, name: 'sms' })
 * ```
 */
export interface PostgresQueueConnection {
  /**
   * What BullMQ's PostgreSQL backend takes: a connection string, a node-postgres pool config
   * (with BullMQ's `schema`, default `bullmq`, and `migrate: true` to create or upgrade its
   * tables on connect), or a `pg.Pool` whose `search_path` starts with BullMQ's schema (BullMQ
   * cannot set it on a pool it did not make) and whose tables exist (`runMigrations`).
   */
  postgres: PostgresConnectionOptions;
}

/**
 * How long the queue's datastore keeps a finished send (its job holds phone numbers and message contents, which are
 * personal data). BullMQ removes a finished job once it is older than this, when another job of the
 * same kind finishes after that moment.
 *
 * @example
 * ```ts
 * new MessagingQueue({ connection, name: 'sms', retention: { sentSeconds: 3600 } })
 * ```
 */
export interface RetentionOptions {
  /**
   * Seconds a send that ended `sent` is kept: long enough to answer "did it go?" and for `id`
   * to keep enqueueing idempotent for a day of retries by the producer, short enough to hold little.
   * @default 86400 (1 day)
   */
  sentSeconds?: number;
  /**
   * Seconds a send that ended `failed` (refused by the service: a 422...) is kept, for a person to look at.
   * @default 604800 (7 days)
   */
  failedSeconds?: number;
  /**
   * Seconds a send that ended `unknown` is kept: someone must decide whether to `resend(id)` it.
   * `failed` and `unknown` sends share BullMQ's failed set, which has one age: the longer of the two applies to both.
   * @default 604800 (7 days)
   */
  unknownSeconds?: number;
}

/** Options of `new MessagingQueue()`. */
export interface MessagingQueueOptions {
  /** Where the queue lives, Redis or PostgreSQL (every producer and worker of the queue gives the same). */
  connection: QueueConnection;
  /** The queue's name: producers and workers of one outbox use the same name. Letters, digits, `-`, `_`, `.`. */
  name: string;
  /**
   * The first part of every Redis key of the queue (BullMQ's `prefix`); every producer, worker and
   * relay of the queue gives the same. On Redis Cluster, wrap it in braces, a hash tag such as
   * `'{sms}'`: the queue's keys then share one slot, which BullMQ's scripts and the SDK's need (a
   * Cluster connection without one is refused). Not used on PostgreSQL.
   * @default 'bull' (BullMQ's)
   * @example `new MessagingQueue({ connection: new Cluster(nodes), name: 'sms', prefix: '{sms}' })`
   */
  prefix?: string;
  /**
   * How long finished sends stay in the queue's datastore.
   * @default RETENTION_DEFAULTS (a day for `sent`, a week for `failed` and `unknown`)
   */
  retention?: RetentionOptions;
  /**
   * Enqueue attempts a send may use for failures where the request certainly never left (the
   * connection was never made): those are retried with exponential backoff from 1 s.
   * @default 5
   */
  attempts?: number;
  /**
   * Use a Redis that can lose what it acknowledged anyway: one without an append-only file
   * (`appendonly no`), or with a `maxmemory-policy` other than `noeviction`. Refused by default
   * with a `DatastoreError` that names the setting; with this, a warning is logged instead.
   * For development only. (PostgreSQL is not checked: it keeps what it committed.)
   * @default false
   * @example `new MessagingQueue({ connection, name: 'sms', allowUnsafeDatastore: process.env.NODE_ENV !== 'production' })`
   */
  allowUnsafeDatastore?: boolean;
  /**
   * Redis with replicas (Sentinel, or a Cluster's masters): `send()`, `sendMany()` and the outbox's relay resolve only once
   * this many replicas acknowledged the send (Redis `WAIT`), so that a failover cannot roll it
   * back. Without it, a send rolled back by a failover is reported afterwards (`DatastoreError`,
   * `rolled-back`) for you to enqueue again. Past the timeout, or with no replica connected, the
   * call rejects with a `DatastoreError` (`not-replicated`): the send IS stored on the primary;
   * enqueue it again only with the same id. Costs a round trip to a replica per call (README,
   * measured). On a Redis Cluster, the replicas of the master that owns the queue's slot. Not used
   * on PostgreSQL (it commits durably).
   * @default none: no waiting
   * @example `new MessagingQueue({ connection, name: 'sms', waitForReplicas: { replicas: 1, timeout: 1000 } })`
   */
  waitForReplicas?: WaitForReplicasOptions;
  /**
   * Where the queue warns about an unsafe datastore it was allowed to use, and logs its
   * datastore's connection errors (once per kind, with a count every 10 s while they repeat).
   * @default none: silent
   * @example `new MessagingQueue({ connection, name: 'sms', logger: console })`
   */
  logger?: Logger;
  /**
   * Quiet hours for every send of this queue: a message due inside the window waits until it ends
   * in its time zone (correct across DST changes). A send may give its own, or `null` to ignore them.
   * @default none: messages go when due
   * @example `new MessagingQueue({ connection, name: 'sms', quietHours: { start: '21:00', end: '08:00', timeZone: 'recipient' } })`
   */
  quietHours?: QuietHoursOptions;
}

/**
 * A daily window in which messages are not sent: `[start, end)` in local wall-clock time of
 * `timeZone`, wrapping midnight when `start` is later than `end` (21:00 to 08:00).
 *
 * @example
 * ```ts
 * const quietHours: QuietHoursOptions = { start: '21:00', end: '08:00', timeZone: 'Europe/Paris' }
 * ```
 */
export interface QuietHoursOptions {
  /**
   * When the window starts, `'HH:MM'` on a 24-hour clock.
   */
  start: string;
  /**
   * When it ends (the first minute messages may go again), `'HH:MM'`; not equal to `start`.
   */
  end: string;
  /**
   * An IANA time zone (`'America/New_York'`), or `'recipient'`: the zone of the recipient's
   * country, read from `to_phone`. A country with several zones holds the message until the window
   * has ended in every one of them (README, "Pacing and scheduling").
   */
  timeZone: string;
}

/**
 * How many replicas must hold an enqueue before it resolves, and how long to wait for them.
 *
 * @example
 * ```ts
 * new MessagingQueue({ connection, name: 'sms', waitForReplicas: { replicas: 1, timeout: 500 } })
 * ```
 */
export interface WaitForReplicasOptions {
  /**
   * Replicas that must acknowledge the send (at most the number the primary has).
   * @default 1
   */
  replicas?: number;
  /**
   * Ms to wait for them; past it the call rejects with a `DatastoreError` (`not-replicated`).
   * @default 1000
   */
  timeout?: number;
}

/** Options of `queue.send()`. */
export interface EnqueueOptions {
  /**
   * Your business id for this send (an order id...): the same id enqueued twice sends once, as
   * long as the first job is kept (see `retention`). A non-empty string without `:`, not all digits.
   * @default a new id from BullMQ
   */
  id?: string;
  /**
   * Not sent before this moment: the job waits in the datastore (no timer, no worker slot), and
   * `updates()` reports `scheduled`. `queue.cancel(id)` takes it back until it is sent.
   * @default undefined: as soon as a worker is free
   * @example `await queue.send(params, { id: 'reminder-42', sendAt: new Date(Date.now() + 3_600_000) })`
   */
  sendAt?: Date;
  /**
   * This message's quiet hours, instead of the queue's; `null` ignores them (a one-time code).
   * @default the queue's `quietHours`
   * @example `await queue.send(params, { id: 'otp-7', quietHours: null })`
   */
  quietHours?: QuietHoursOptions | null;
}

/** One item of `queue.sendMany()`: the send parameters, and optionally an id, a `sendAt` and quiet hours. */
export interface EnqueueItem extends EnqueueOptions {
  params: import('../index.js').SendMessageParams;
}

/**
 * What `updates()` reports: every outcome of every send, from any worker, and why a message waits:
 * `scheduled` (its `sendAt`), `quiet-hours` (held until the window ends), `rate-limited` (the
 * service answered its send 429: the queue pauses until `until`, at most 60 s, and it goes after)
 * or `cancelled` (never sent).
 */
export type UpdateStatus =
  | 'sent'
  | 'failed'
  | 'unknown'
  | 'delivered'
  | 'read'
  | 'delivery-timeout'
  | 'scheduled'
  | 'quiet-hours'
  | 'rate-limited'
  | 'cancelled';

/**
 * One change of a queued send. The same `id` and `status` may arrive twice (after a worker's crash,
 * or a reader's resume): updates are at least once, so handle them by id (see `queue.updates()`).
 *
 * @example
 * ```ts
 * for await (const update of queue.updates()) if (update.status === 'unknown') alert(update.id)
 * ```
 */
export interface MessagingUpdate {
  /** The job id (`send`'s answer, your `id` when you gave one). */
  readonly id: string;
  readonly status: UpdateStatus;
  /** The message log, when the service returned or showed one. */
  readonly log?: MessageLog | undefined;
  /**
   * What went wrong, for `failed` and `unknown`: the typed error's name, message and HTTP fields;
   * for `rate-limited`, the 429 and the pause it set.
   */
  readonly error?: UpdateError | undefined;
  /** The event's id in the queue's event log: pass it as `updates({ from })` to resume after it. */
  readonly eventId: string;
  /** When the worker published it (ISO 8601); absent on updates published by versions before it. */
  readonly at?: string | undefined;
  /** For `scheduled`, `quiet-hours` and `rate-limited`: when the message may go (ISO 8601). */
  readonly until?: string | undefined;
}

/** A failure as an update carries it (plain data: it went through the datastore). */
export interface UpdateError {
  readonly name: string;
  readonly message: string;
  readonly status?: number | undefined;
  /** A 422's field errors. */
  readonly errors?: Readonly<Record<string, readonly string[]>> | undefined;
}

/** Options of `queue.updates()`. */
export interface UpdatesOptions {
  /**
   * Where to start: `'now'` (updates published from this call on), `'start'` (everything the
   * event log still holds) or an `eventId` of an update already handled (resume after it).
   * @default 'now'
   */
  from?: string;
  /**
   * Stops the iteration (it also stops when you `break`).
   * @default undefined
   */
  signal?: AbortSignal;
}

/** `queue.counts()`: sends by state, across the fleet. */
export interface MessagingCounts {
  /**
   * Enqueued and not started (including sends waiting out a 429 or a retry delay, scheduled ones,
   * ones held by quiet hours or a full lane), and sends being reconciled after a crash between two
   * pages of their walk (back in the queue, still `in-flight`).
   */
  readonly waiting: number;
  /** Being sent, reconciled or polled now. */
  readonly active: number;
  /** Ended `sent` and kept. */
  readonly sent: number;
  /** Ended `failed` and kept. */
  readonly failed: number;
  /** Ended `unknown` and kept: each waits for a person (`resend(id)`). */
  readonly unknown: number;
  /** Sent, and waiting for their next delivery poll. */
  readonly tracking: number;
}
