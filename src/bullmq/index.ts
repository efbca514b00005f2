/**
 * tenant-messaging/bullmq: a crash-safe outbox on BullMQ (Redis or PostgreSQL), for a fleet of processes:
 * producers enqueue with `MessagingQueue`, workers send with `MessagingWorker` within one
 * fleet-wide rate limit, and never send a message twice after a crash; `MessagingOutbox` adds a
 * message inside the application's PostgreSQL transaction, and `WebhookRelay` pushes the updates
 * as signed webhooks. `bullmq`, and `ioredis` or `pg`, are optional peer dependencies; the main
 * entry never loads them.
 *
 * @example
 * ```ts
 * import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq'
 * ```
 *
 * @packageDocumentation
 */
import { loadBullmq } from './load.js';

// Loaded on import, so that a missing install fails here with our message (what to install),
// not later inside a constructor.
loadBullmq();

export type { WebhookEndpoint } from '../webhooks/index.js';
export { RETENTION_DEFAULTS, WAIT_FOR_REPLICAS_DEFAULTS } from './checks.js';
export { DatastoreError, type DatastoreFault } from './errors.js';
export {
  MessagingOutbox,
  type MessagingOutboxOptions,
  type OutboxAddOptions,
  type Queryable,
} from './outbox/outbox.js';
export { type OutboxClient, type OutboxPool, OutboxRelay, type OutboxRelayOptions } from './outbox/relay.js';
export { MessagingQueue } from './queue/queue.js';
export { MAX_STORED_MEDIA_BYTES } from './send/params.js';
export { MIGRATION_SQL, migrate } from './store/migrate.js';
export type {
  EnqueueItem,
  EnqueueOptions,
  MessagingCounts,
  MessagingQueueOptions,
  MessagingUpdate,
  PostgresQueueConnection,
  QueueConnection,
  QuietHoursOptions,
  RetentionOptions,
  UpdateError,
  UpdateStatus,
  UpdatesOptions,
  WaitForReplicasOptions,
} from './types.js';
export { WebhookRelay } from './webhooks/relay.js';
export type { DisabledEndpoint, WebhookRelayOptions } from './webhooks/types.js';
export { MessagingWorker, TRACK_DEFAULTS } from './worker/worker.js';
export type { MessagingWorkerOptions, TrackDeliveryOptions, WorkerRateLimit } from './worker-types.js';
