import type {
  BackendFactory,
  ConnectionOptions,
  Processor,
  Queue,
  QueueEvents,
  QueueEventsOptions,
  QueueEventsProducer,
  QueueOptions,
  Worker,
  WorkerOptions,
} from 'bullmq';
import { MessagingError, MissingPeerError } from '../../index.js';
import { requirePeer } from '../../seam/peers.js';
import { DatastoreError } from '../errors.js';
import type { BullMQModule } from '../load.js';
import type { PostgresQueueConnection, QueueConnection } from '../types.js';
import { guardConnections } from './postgres/connection-guard.js';

/**
 * Which of BullMQ's datastores a queue lives in, read from the connection its caller gave: each
 * `MessagingQueue`, `MessagingWorker` and `WebhookRelay` picks its own, and nothing process-wide
 * is set (BullMQ's `setDefaultBackendFactory` would flip every other BullMQ queue of the process).
 */
export interface Backend {
  readonly kind: 'redis' | 'postgres';
  /** The connection as BullMQ takes it. */
  readonly connection: ConnectionOptions | PostgresQueueConnection['postgres'];
  /** BullMQ's factory for the datastore: undefined for Redis, its default. */
  readonly factory: BackendFactory | undefined;
  /** BullMQ's key prefix, when the caller gave one (checked by `checkPrefix`). */
  readonly prefix?: string | undefined;
}

/** Whether a connection is the PostgreSQL form, `{ postgres: ... }`. */
export function isPostgres(connection: QueueConnection): connection is PostgresQueueConnection {
  return typeof connection === 'object' && connection !== null && 'postgres' in connection;
}

/** The backend of a connection (checked by `checkConnection` first). */
export function backendOf(bull: BullMQModule, connection: QueueConnection, prefix?: string): Backend {
  if (isPostgres(connection)) {
    requireInstalled('pg', 'npm install pg');
    return {
      kind: 'postgres',
      connection: connection.postgres,
      factory: bull.createPostgresBackend as unknown as BackendFactory,
      prefix,
    };
  }
  // An ioredis instance brings its own module; options need it installed.
  if (!isRedisInstance(connection)) requireInstalled('ioredis', 'npm install ioredis');
  return { kind: 'redis', connection, factory: undefined, prefix };
}

/*
 * BullMQ's classes, made on a backend. Their constructors are overloaded on the factory's type,
 * which a factory chosen at run time cannot satisfy; these keep that cast in one place. The
 * instances are typed with BullMQ's default (Redis) backend type: the SDK calls only the methods
 * every backend has (IQueueBackend), and reaches a datastore's own client only in the store's adapters (store/redis, store/postgres).
 */
type Options<T> = Omit<T, 'connection'>;

/** How long a worker waits after a connection error before it asks the datastore for a job again. */
const RUN_RETRY_DELAY_MS = 1_000;

function args<O>(backend: Backend, options: O): [never, never?] {
  const withConnection = {
    ...options,
    connection: backend.connection,
    ...(backend.prefix === undefined ? {} : { prefix: backend.prefix }),
  } as never;
  return backend.factory ? [withConnection, backend.factory as never] : [withConnection];
}

export function makeQueue<D, R>(
  bull: BullMQModule,
  name: string,
  backend: Backend,
  options: Options<QueueOptions> = {},
) {
  return heard(guarded(backend, new bull.Queue<D, R>(name, ...args(backend, options)) as Queue<D, R>));
}

export function makeWorker<D, R>(
  bull: BullMQModule,
  name: string,
  processor: Processor<D, R>,
  backend: Backend,
  options: Options<WorkerOptions>,
) {
  // BullMQ waits 15 s after a connection error before its worker asks for a job again: every
  // restart or failover of the datastore would stop sends that long after it is back.
  const withRetry = { runRetryDelay: RUN_RETRY_DELAY_MS, ...options };
  return heard(guarded(backend, new bull.Worker<D, R>(name, processor, ...args(backend, withRetry)) as Worker<D, R>));
}

export function makeQueueEvents(
  bull: BullMQModule,
  name: string,
  backend: Backend,
  options: Options<QueueEventsOptions>,
) {
  return heard(new bull.QueueEvents(name, ...args(backend, options)) as QueueEvents);
}

export function makeProducer(bull: BullMQModule, name: string, backend: Backend) {
  return heard(new bull.QueueEventsProducer(name, ...args(backend, {})) as QueueEventsProducer);
}

/**
 * A BullMQ object with an 'error' listener from birth to close: one that no one hears is printed
 * by BullMQ (console.error, into the user's logs) or thrown. Whoever uses the object hears the
 * errors that concern it, on its calls or with a listener of its own (the worker's logger).
 */
function heard<T extends { on(event: 'error', listener: (error: Error) => void): unknown }>(made: T): T {
  made.on('error', () => undefined);
  return made;
}

/** A BullMQ object on PostgreSQL, its connections guarded from birth (postgres/connection-guard.ts). */
function guarded<T>(backend: Backend, made: T): T {
  if (backend.kind === 'postgres') guardConnections(made);
  return made;
}

function isRedisInstance(connection: QueueConnection): boolean {
  const candidate = connection as { duplicate?: unknown; status?: unknown };
  return typeof candidate.duplicate === 'function' && typeof candidate.status === 'string';
}

function requireInstalled(name: string, install: string): void {
  try {
    requirePeer(name);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new MissingPeerError(
      `tenant-messaging/bullmq needs ${name} for this connection, an optional peer dependency that is not installed: run \`${install}\`.`,
      name,
      install,
      error,
    );
  }
}

/**
 * The datastore's refusals as errors that say what to do: a full datastore as a `DatastoreError`
 * (`full`), and BullMQ's own error for a PostgreSQL schema it cannot find ("function add_job(...)
 * does not exist") as a `MessagingError`; anything else unchanged.
 */
export function explained(error: unknown): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // Redis at maxmemory under noeviction; PostgreSQL out of disk (53100) or memory (53200).
  if (/^OOM /.test(String(message)) || code === '53100' || code === '53200') {
    return new DatastoreError(
      'full',
      `The datastore refused the write: it is full (${String(message).split('\n')[0]}). Nothing was stored. Give it more memory or disk, or let the workers drain the queue (sent jobs are removed after retention.sentSeconds), then try again.`,
      { cause: error },
    );
  }
  // 42883: undefined function; 42P01: undefined table; 3F000: invalid schema name.
  if (code !== '42883' && code !== '42P01' && code !== '3F000') return error;
  return new MessagingError(
    "BullMQ's PostgreSQL tables were not found: create them once with BullMQ's runMigrations (or pass a pool config with migrate: true), and give a pg.Pool whose search_path starts with BullMQ's schema, e.g. new Pool({ connectionString, options: '-c search_path=bullmq' }) (BullMQ cannot set it on a pool it did not make).",
    { cause: error, code: 'datastore.schema_missing' },
  );
}

/** `promise`, rejecting with the explained error (see `explained`). */
export function explaining<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((error: unknown) => Promise.reject(explained(error)));
}
