/**
 * The public types of `new MessagingWorker()`. Like every file of types, this imports no
 * implementation module.
 */
import type { Logger, MessagingClient, PerRecipientLimit, PerSenderLimit } from '../index.js';
import type { QueueConnection, RetentionOptions } from './types.js';

/**
 * The tenant's rate limit, for the whole fleet: no sliding second at the service holds more
 * requests of the fleet than this. Each request keeps its place one second past its answer, so
 * answers of `r` ms allow `requestsPerSecond * 1000 / (1000 + r)` requests a second (README).
 *
 * @example
 * ```ts
 * new MessagingWorker({ connection, name: 'sms', client, rateLimit: { requestsPerSecond: 50 } })
 * ```
 */
export interface WorkerRateLimit {
  /**
   * Requests per second the service allows this key, a whole number from 1 (the fleet counts whole
   * requests in each second: a fraction is refused): sends, delivery polls and reconciliation reads together.
   * @example `50`
   */
  requestsPerSecond: number;
  /**
   * Per-sender lanes across the fleet: at most `requestsPerSecond` sends of one sender in any
   * sliding second at the service. A send whose lane is full goes back to the datastore until it
   * has room, holding no worker slot; the others go ahead.
   * @default undefined (no per-sender lane)
   * @example `rateLimit: { requestsPerSecond: 50, perSender: { requestsPerSecond: 10 } }`
   */
  perSender?: PerSenderLimit;
  /**
   * Per-recipient pacing across the fleet: two sends to one recipient (`to_phone` in canonical
   * E.164 form) at least `minInterval` ms apart at the service.
   * @default undefined (no per-recipient pacing)
   * @example `rateLimit: { requestsPerSecond: 50, perRecipient: { minInterval: 6_000 } }`
   */
  perRecipient?: PerRecipientLimit;
}

/** Delivery tracking of sent messages (polling, within the same rate limit). */
export interface TrackDeliveryOptions {
  /**
   * The status that ends tracking: `delivered` (or `read`), or `read` only.
   * @default 'delivered'
   */
  until?: 'delivered' | 'read';
  /**
   * Ms after the send after which tracking ends with `delivery-timeout`, a whole number from 1 to
   * 2147483647 (a job's delay: a fraction is refused).
   * @default 3600000 (1 hour)
   */
  timeout?: number;
  /**
   * Ms before the first poll, a whole number from 1 to 2147483647; later polls back off while
   * nothing changes (up to 8 times this).
   * @default 2000
   */
  interval?: number;
}

/** Options of `new MessagingWorker()`. */
export interface MessagingWorkerOptions {
  /** Where the queue lives, as its producers give it (Redis or `{ postgres }`). */
  connection: QueueConnection;
  /** The queue's name, as the producers give it. */
  name: string;
  /**
   * The first part of every Redis key of the queue (BullMQ's `prefix`); every producer, worker and
   * relay of the queue gives the same. On Redis Cluster, wrap it in braces, a hash tag such as
   * `'{sms}'`: the queue's keys then share one slot, which BullMQ's scripts and the SDK's need (a
   * Cluster connection without one is refused). Not used on PostgreSQL.
   * @default 'bull' (BullMQ's)
   * @example `new MessagingWorker({ connection: new Cluster(nodes), name: 'sms', prefix: '{sms}', client })`
   */
  prefix?: string;
  /**
   * The client that sends. The worker uses `client.withOptions({ maxRetries: 0 })` without the
   * client's own rate gate: a 429 must reach the worker, which pauses the whole queue (every
   * worker) for its Retry-After. Its `timeout` is also how long a killed worker's open request
   * keeps its place in the fleet's limit.
   */
  client: MessagingClient;
  /**
   * Jobs this process works on at once, a whole number from 1 to 2147483647.
   * @default 1
   */
  concurrency?: number;
  /**
   * The tenant's limit for the whole fleet; every worker of the queue must give the same.
   * @default none: requests are not limited (a 429 still pauses the queue)
   */
  rateLimit?: WorkerRateLimit;
  /**
   * Poll each sent message until it is delivered or read.
   * @default none: delivery is not tracked
   */
  trackDelivery?: TrackDeliveryOptions;
  /**
   * Ms a worker's lock on a job lasts, a whole number from 1 to 2147483647 (a lock's expiry in the
   * datastore, and a timer); a crashed worker's job is re-run after about this plus `stalledInterval`.
   * @default 30000
   */
  lockDuration?: number;
  /**
   * Ms between checks for jobs whose worker died, a whole number from 1 to 2147483647 (a timer).
   * @default 30000
   */
  stalledInterval?: number;
  /**
   * How far, in ms, the service's clock may be behind the workers': a whole number from 0 to
   * 2147483647. A send whose outcome is unknown
   * (a crash mid-send, a lost answer) is reconciled by reading `GET /messages` back to its start
   * minus this margin, one page per job start, within `rateLimit`: at 50 requests a second, each
   * second of margin is about 3 pages (50 logs / 15 per page) of the limit. Lower it when the
   * service's clock is known to be close (NTP on both sides).
   * @default 60000 (as `messages.reconcile`)
   */
  clockSkewMs?: number;
  /**
   * Retention for jobs that carry none of their own (every `MessagingQueue` job carries its
   * producer's `retention`, which wins): BullMQ's worker-level `removeOnComplete`/`removeOnFail`.
   * @default RETENTION_DEFAULTS
   */
  retention?: RetentionOptions;
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
   * Where the worker logs `unknown` outcomes, the datastore's connection errors, and a datastore
   * found to have forgotten the queue (`DatastoreError`, reason `forgot`).
   * @default none: silent
   */
  logger?: Logger;
}
