import { type Issue, ValidationError } from '../index.js';
import { checkKnownKeys, describeValue, type KnownKeys, MAX_TIMER_MS } from '../seam/option-checks.js';
import { checkConnection } from './store/connection-check.js';
import type { ReplicaWait } from './store/types.js';
import type {
  EnqueueOptions,
  MessagingQueueOptions,
  RetentionOptions,
  UpdatesOptions,
  WaitForReplicasOptions,
} from './types.js';
import type { MessagingWorkerOptions, TrackDeliveryOptions, WorkerRateLimit } from './worker-types.js';

const DAY = 86_400;

/** The retention defaults (see `RetentionOptions` for why). */
export const RETENTION_DEFAULTS = Object.freeze({ sentSeconds: DAY, failedSeconds: 7 * DAY, unknownSeconds: 7 * DAY });

/** `waitForReplicas`'s defaults (see `WaitForReplicasOptions`). */
export const WAIT_FOR_REPLICAS_DEFAULTS: ReplicaWait = Object.freeze({ replicas: 1, timeout: 1_000 });

const RETENTION_KEYS: KnownKeys<RetentionOptions> = { sentSeconds: true, failedSeconds: true, unknownSeconds: true };

/** The option names of each options object of this entry, nested ones by their path. */
export const OPTION_KEYS = {
  queue: {
    '': {
      connection: true,
      name: true,
      prefix: true,
      retention: true,
      attempts: true,
      allowUnsafeDatastore: true,
      waitForReplicas: true,
      logger: true,
      quietHours: true,
    },
    retention: RETENTION_KEYS,
    waitForReplicas: { replicas: true, timeout: true },
  } satisfies {
    '': KnownKeys<MessagingQueueOptions>;
    retention: KnownKeys<RetentionOptions>;
    waitForReplicas: KnownKeys<WaitForReplicasOptions>;
  },
  worker: {
    '': {
      connection: true,
      name: true,
      prefix: true,
      client: true,
      concurrency: true,
      rateLimit: true,
      trackDelivery: true,
      lockDuration: true,
      stalledInterval: true,
      clockSkewMs: true,
      retention: true,
      allowUnsafeDatastore: true,
      logger: true,
    },
    rateLimit: { requestsPerSecond: true, perSender: true, perRecipient: true },
    trackDelivery: { until: true, timeout: true, interval: true },
    retention: RETENTION_KEYS,
  } satisfies {
    '': KnownKeys<MessagingWorkerOptions>;
    rateLimit: KnownKeys<WorkerRateLimit>;
    trackDelivery: KnownKeys<TrackDeliveryOptions>;
    retention: KnownKeys<RetentionOptions>;
  },
  enqueue: { '': { id: true, sendAt: true, quietHours: true } } satisfies { '': KnownKeys<EnqueueOptions> },
  updates: { '': { from: true, signal: true } } satisfies { '': KnownKeys<UpdatesOptions> },
};

/**
 * Refuses every key that is not an option, in `options` and in its nested option objects named in
 * `known` (a misspelt `{ concurency: 8 }` would otherwise be ignored), as the client does.
 */
export function checkOptionKeys(options: unknown, known: Readonly<Record<string, object>>, what: string): void {
  if (typeof options !== 'object' || options === null) return;
  const issues: Issue[] = [];
  for (const [path, keys] of Object.entries(known)) {
    const value = path === '' ? options : (options as Record<string, unknown>)[path];
    if (typeof value !== 'object' || value === null) continue;
    const found: Issue[] = [];
    checkKnownKeys(value, keys, path === '' ? '' : ` of ${path}`, found);
    for (const issue of found) issues.push(path === '' ? issue : { ...issue, path: `${path}.${issue.path}` });
  }
  if (issues.length > 0) throw new ValidationError(what, issues, { code: 'validation.options' });
}

/** Checks a queue name: BullMQ keys are `bull:<name>:...`, so a `:` would break them. */
export function checkName(name: unknown, what: string): string {
  if (typeof name !== 'string' || !/^[\w.-]{1,100}$/.test(name)) {
    throw new ValidationError(
      what,
      [
        {
          path: 'name',
          message: `must be 1 to 100 letters, digits, '-', '_' or '.', e.g. 'sms-outbox', got ${JSON.stringify(name) ?? String(name)}`,
        },
      ],
      { code: 'validation.options' },
    );
  }
  return name;
}

/** Whether a connection is an ioredis `Cluster` (BullMQ asks the same way). */
export function isRedisCluster(connection: unknown): boolean {
  return (connection as { isCluster?: unknown } | null)?.isCluster === true;
}

/**
 * Checks a key prefix, and that a Redis Cluster connection has one with a hash tag: without it a
 * queue's keys spread over slots, and every script BullMQ or the SDK runs fails with CROSSSLOT.
 */
export function checkPrefix(prefix: unknown, connection: unknown, what: string): string | undefined {
  if (prefix !== undefined && (typeof prefix !== 'string' || !/^[^\s:]{1,100}$/u.test(prefix))) {
    throw new ValidationError(
      what,
      [
        {
          path: 'prefix',
          message: `must be 1 to 100 characters without spaces or ':', e.g. '{sms}', got ${JSON.stringify(prefix) ?? String(prefix)}`,
        },
      ],
      { code: 'validation.options' },
    );
  }
  if (isRedisCluster(connection) && !/\{[^{}]+\}/.test(prefix ?? '')) {
    throw new ValidationError(
      what,
      [
        {
          path: 'prefix',
          message: `a Redis Cluster needs every key of a queue in one slot: give a prefix with a hash tag, e.g. prefix: '{sms}', the same on every producer, worker and relay of the queue${prefix === undefined ? '' : ` (got '${prefix}')`}`,
        },
      ],
      { code: 'validation.options' },
    );
  }
  return prefix;
}

/** Checks an enqueue id: BullMQ refuses integer-like ids and `:`. */
export function checkJobId(id: unknown, path = 'id'): string | undefined {
  if (id === undefined) return undefined;
  if (
    typeof id !== 'string' ||
    id === '' ||
    id.length > 256 ||
    id.includes(':') ||
    `${Number.parseInt(id, 10)}` === id
  ) {
    throw new ValidationError('Invalid enqueue options', [
      {
        path,
        message: `must be a non-empty string of up to 256 characters, without ':' and not an integer (BullMQ's own ids are integers), e.g. 'order-1234', got ${JSON.stringify(id) ?? String(id)}`,
      },
    ]);
  }
  return id;
}

/**
 * The largest whole number every place a fleet option goes can hold: PostgreSQL's `integer` (the
 * fleet gate's limit, BullMQ's attempts), and a timer's ms (Node's setTimeout).
 */
export const MAX_WHOLE = MAX_TIMER_MS;

/**
 * The issue of an option that must be a whole number from `min` to `MAX_WHOLE` (`unit` says of
 * what), or none when it is, or is not given. Fractions are refused, never rounded: the options
 * reach Lua, SQL `integer`/`bigint` columns and timers, and a limit of 1.5 requests a second is
 * neither 1 nor 2 (the fleet gate would let 2 into a second; PostgreSQL refuses "1.5").
 */
export function wholeIssue(path: string, value: unknown, unit: string, min = 1): Issue | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= MAX_WHOLE) return undefined;
  const fraction = typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value);
  const near = fraction ? ` (write ${Math.max(min, Math.floor(value))} or ${Math.max(min, Math.ceil(value))})` : '';
  return {
    path,
    message: `must be a whole number of ${unit} from ${min} to ${MAX_WHOLE}, got ${describeValue(value)}${near}`,
  };
}

/**
 * The issue of a lane's rate, or none: a number of requests a second > 0 up to MAX_WHOLE, as the
 * client's lanes take it (core/rate/lane.ts `senderLane`): from 1 up, floored to a whole limit a
 * second (2.5 is 2, never over); below 1, one request a window of `1000 / rate` ms, rounded up.
 * Both reach the datastore whole.
 */
export function laneRateIssue(path: string, value: unknown): Issue | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && value > 0 && value <= MAX_WHOLE && Math.ceil(1000 / value) <= MAX_WHOLE)
    return undefined;
  return {
    path,
    message: `must be a number of requests a second from ${1000 / MAX_WHOLE} to ${MAX_WHOLE} (0.5 is one every 2 s; 2.5 is floored to 2), got ${describeValue(value)}`,
  };
}

/**
 * The issue of a nested options object given as something else, or none: `trackDelivery: 60_000`
 * or `retention: 86_400` would otherwise be read as `{}`, every number in it the default.
 */
export function objectIssue(path: string, value: unknown, example: string): Issue | undefined {
  if (value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value))) return undefined;
  return { path, message: `must be an object such as ${example}, got ${describeValue(value)}` };
}

/** The issues of `retention`, every one: its shape, then each of its seconds. */
export function retentionIssues(retention: unknown): Issue[] {
  const shape = objectIssue('retention', retention, '{ sentSeconds: 86400 }');
  if (shape) return [shape];
  const given = (retention ?? {}) as Record<string, unknown>;
  // Seconds BullMQ keeps as `age` (a `bigint` of ms on PostgreSQL).
  return (Object.keys(RETENTION_DEFAULTS) as (keyof RetentionOptions)[]).flatMap(
    (key) => wholeIssue(`retention.${key}`, given[key], 'seconds', 0) ?? [],
  );
}

/** Checks `retention` and applies its defaults. */
export function checkRetention(
  retention: RetentionOptions | undefined,
  what = 'Invalid MessagingQueue options',
): Required<RetentionOptions> {
  const issues = retentionIssues(retention);
  if (issues.length > 0) throw new ValidationError(what, issues, { code: 'validation.options' });
  return { ...RETENTION_DEFAULTS, ...retention };
}

/** Checks the producer's options; answers `waitForReplicas` with its defaults, when given. */
export function checkQueueOptions(options: MessagingQueueOptions): Required<WaitForReplicasOptions> | undefined {
  if (typeof options !== 'object' || options === null) {
    throw new ValidationError(
      'Invalid MessagingQueue options',
      [
        {
          path: '',
          message: "must be an object such as { connection: { host: '127.0.0.1', port: 6379 }, name: 'sms' }",
        },
      ],
      { code: 'validation.options' },
    );
  }
  checkOptionKeys(options, OPTION_KEYS.queue, 'Invalid MessagingQueue options');
  checkConnection(options.connection, 'Invalid MessagingQueue options');
  checkName(options.name, 'Invalid MessagingQueue options');
  checkPrefix(options.prefix, options.connection, 'Invalid MessagingQueue options');
  const attempts = wholeIssue('attempts', options.attempts, 'attempts');
  if (attempts) throw new ValidationError('Invalid MessagingQueue options', [attempts], { code: 'validation.options' });
  return checkWaitForReplicas(options.waitForReplicas);
}

/** Checks `waitForReplicas` and applies its defaults. */
function checkWaitForReplicas(wait: WaitForReplicasOptions | undefined): Required<WaitForReplicasOptions> | undefined {
  if (wait === undefined) return undefined;
  const what = 'Invalid MessagingQueue options';
  const shape = objectIssue('waitForReplicas', wait, '{ replicas: 1, timeout: 1000 }');
  if (shape) throw new ValidationError(what, [shape], { code: 'validation.options' });
  const issues: Issue[] = [];
  const replicas = wholeIssue('waitForReplicas.replicas', wait.replicas, 'replicas');
  if (replicas) issues.push({ ...replicas, message: `${replicas.message} (replicas that must acknowledge, e.g. 1)` });
  const timeout = wholeIssue('waitForReplicas.timeout', wait.timeout, 'ms');
  if (timeout) issues.push({ ...timeout, message: `${timeout.message} (ms to wait, e.g. 1000)` });
  if (issues.length > 0) throw new ValidationError(what, issues, { code: 'validation.options' });
  return {
    replicas: wait.replicas ?? WAIT_FOR_REPLICAS_DEFAULTS.replicas,
    timeout: wait.timeout ?? WAIT_FOR_REPLICAS_DEFAULTS.timeout,
  };
}

export { checkConnection };
