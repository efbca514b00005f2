import { randomUUID } from 'node:crypto';
import type { Queue, RedisClient } from 'bullmq';
import type { Logger } from '../types/logger.js';
import type { Backend } from './backend.js';
import { DatastoreError } from './datastore-error.js';

/**
 * Keeps a queue's promise "never silently lost" honest about its datastore. At first use it
 * refuses a Redis that can lose what it acknowledged (no append-only file, or an eviction
 * policy), unless the caller opted in, and writes a marker of the queue; afterwards it finds the
 * marker gone when the datastore forgot (a restart without persistence, a flush, an eviction),
 * and reports that once, as a `DatastoreError`, before carrying on with a new marker.
 */
export interface DatastoreGuard {
  /** Resolves once the datastore was checked and the marker written; rejects with `DatastoreError` when refused. */
  ready(): Promise<void>;
  /**
   * `ready()`, then at most once per second a look at the marker: rejects with a `DatastoreError`
   * (`forgot`) the first time it finds it gone or replaced.
   */
  check(): Promise<void>;
}

export interface GuardSettings {
  /** The queue, as messages name it. */
  readonly queue: string;
  /** The marker's key, in the queue's key space. */
  readonly key: string;
  /** Use a Redis that can lose sends anyway, with a warning: for development. */
  readonly allowUnsafe: boolean;
  readonly logger: Logger | undefined;
}

const MARK_COMMAND = 'tenantMessagingMark';
const MARK = "redis.call('SET', KEYS[1], ARGV[1], 'NX') return redis.call('GET', KEYS[1])";

/** How often the marker is looked at, at most. */
const CHECK_MS = 1_000;

/** PostgreSQL keeps what it committed (unless its own durability settings were turned off): nothing to guard. */
export const durableGuard: DatastoreGuard = { ready: async () => undefined, check: async () => undefined };

export function redisGuard(client: Promise<RedisClient>, settings: GuardSettings): DatastoreGuard {
  let ready: Promise<void> | undefined;
  let epoch: string | undefined;
  let since = new Date();
  let checked = 0;

  const defined = client.then((redis) => {
    redis.defineCommand(MARK_COMMAND, { numberOfKeys: 1, lua: MARK });
    return redis;
  });
  /** Writes the marker if there is none, and reads the one that is there, in one step. */
  const mark = async (redis: RedisClient): Promise<string> =>
    String(await redis.runCommand(MARK_COMMAND, [settings.key, `${randomUUID()} ${new Date().toISOString()}`]));

  const start = async () => {
    const redis = await defined;
    refuseUnsafe(parseInfo(await redis.info()), settings);
    epoch = await mark(redis);
    since = new Date();
    checked = Date.now();
  };

  const guard: DatastoreGuard = {
    ready: () => {
      ready ??= start().catch((error: unknown) => {
        ready = undefined; // a datastore that was down is asked again by the next call
        throw error;
      });
      return ready;
    },
    check: async () => {
      await guard.ready();
      if (Date.now() - checked < CHECK_MS) return;
      checked = Date.now();
      const redis = await defined;
      const seen = await redis.get(settings.key);
      if (seen === epoch) return;
      const lostSince = since;
      epoch = await mark(redis);
      since = new Date();
      throw new DatastoreError(
        'forgot',
        `The datastore no longer holds queue '${settings.queue}' as this process left it: its marker, written when this process first used the queue (${lostSince.toISOString()}), is ${seen === null ? 'gone' : 'replaced'}. Redis restarted without persistence, was flushed, or evicted keys, so sends enqueued since then may be lost: enqueue them again with the same ids (one still stored is not stored twice). This call did nothing; the queue carries on with a new marker.`,
        { since: lostSince },
      );
    },
  };
  return guard;
}

/** The `key:value` lines of Redis's INFO. */
function parseInfo(info: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

/** Refuses (or, opted in, warns about) a Redis that can lose what it acknowledged. */
function refuseUnsafe(info: Map<string, string>, settings: GuardSettings): void {
  const faults: DatastoreError[] = [];
  if (info.get('aof_enabled') === '0') {
    faults.push(
      new DatastoreError(
        'not-durable',
        `Redis keeps queue '${settings.queue}' without an append-only file (appendonly no): a restart loses every send it acknowledged since its last snapshot, in silence. Turn it on: \`redis-server --appendonly yes\`, or \`CONFIG SET appendonly yes\` then \`CONFIG REWRITE\` (a managed Redis: its persistence or AOF setting). For development only, pass allowUnsafeDatastore: true.`,
      ),
    );
  }
  const policy = info.get('maxmemory_policy');
  if (policy !== undefined && policy !== 'noeviction') {
    faults.push(
      new DatastoreError(
        'evicts',
        `Redis's maxmemory-policy is '${policy}': when it is full it deletes keys, sends among them, in silence. Set it to noeviction (\`CONFIG SET maxmemory-policy noeviction\`, or maxmemory-policy in redis.conf or your provider's parameter group): a full Redis then refuses new sends with an error instead. For development only, pass allowUnsafeDatastore: true.`,
      ),
    );
  }
  const [first] = faults;
  if (!first) return;
  if (!settings.allowUnsafe) throw first;
  for (const fault of faults) settings.logger?.warn(`allowUnsafeDatastore: ${fault.message}`);
}

/** The guard of a queue's datastore (one per `MessagingQueue` or `MessagingWorker`). */
export function guardOf(
  backend: Backend,
  queue: Queue,
  options: { readonly allowUnsafeDatastore?: boolean | undefined; readonly logger?: Logger | undefined },
): DatastoreGuard {
  if (backend.kind === 'postgres') return durableGuard;
  return redisGuard(queue.getBackend().client as Promise<RedisClient>, {
    queue: queue.name,
    key: queue.toKey('tm-marker'),
    allowUnsafe: options.allowUnsafeDatastore === true,
    logger: options.logger,
  });
}

/**
 * The updates `read` yields, ended by a `DatastoreError` as soon as the guard finds that the
 * datastore forgot the queue (its log was lost with it: a reader must not wait in silence for
 * updates that are gone). `read` is given a signal that stops it then, or when `signal` aborts.
 */
export async function* guarded<T>(
  read: (signal: AbortSignal) => AsyncGenerator<T>,
  guard: DatastoreGuard,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  const lost = new AbortController();
  const updates = read(signal ? AbortSignal.any([signal, lost.signal]) : lost.signal);
  let failure: DatastoreError | undefined;
  // Other errors (a connection down) are the reader's own to report; this looks only for a loss.
  const look = () =>
    guard.check().catch((error: unknown) => {
      if (!(error instanceof DatastoreError) || failure) return;
      failure = error;
      lost.abort(error);
    });
  // Not what keeps a reading process alive: its connection to the datastore is.
  const timer = setInterval(look, CHECK_MS).unref();
  try {
    for (;;) {
      const next = await updates.next();
      if (failure) throw failure;
      if (next.done) return;
      yield next.value;
    }
  } finally {
    clearInterval(timer);
    await updates.return(undefined);
  }
}
