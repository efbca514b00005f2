import { randomUUID } from 'node:crypto';
import type { SendMessageParams } from '../../index.js';
import { type Issue, ValidationError } from '../../index.js';
import type { KnownKeys } from '../../seam/option-checks.js';
import { checkJobId, checkOptionKeys, wholeIssue } from '../checks.js';
import type { StoredSendAdder } from '../queue/enqueue.js';
import { type MessagingQueue, storedSendAdder } from '../queue/queue.js';
import { storedParams } from '../send/params.js';
import { OutboxRelay, type OutboxRelayOptions } from './relay.js';
import { type OutboxTable, outboxTable } from './sql.js';

/**
 * Anything that runs a query as node-postgres does: a `pg.Client` or `PoolClient` inside your
 * `BEGIN … COMMIT`, or an adapter over your query builder's transaction (README).
 */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/** Options of `new MessagingOutbox()`. */
export interface MessagingOutboxOptions {
  /** The queue the outbox hands its messages to (Redis or PostgreSQL). */
  queue: MessagingQueue;
  /**
   * The outbox table's name (letters, digits and `_`, starting with a letter or `_`).
   * @default 'tenant_messaging_outbox'
   */
  table?: string;
  /**
   * The schema it lives in.
   * @default 'public'
   */
  schema?: string;
}

/** Options of `outbox.add()`. */
export interface OutboxAddOptions {
  /**
   * Your business id: added twice (in one transaction or two), it is sent once, as long as the
   * queue keeps the first send (see `retention`). Without it, a random UUID: no deduplication.
   * @default a random UUID
   */
  id?: string;
}

/**
 * The transactional outbox: a message written in the same PostgreSQL transaction as the business
 * change, handed to the queue after the commit. A rolled-back transaction sends nothing; a
 * committed one is sent exactly once, even when a process dies right after the commit or in the
 * middle of the hand-off (the relay re-adds, and the queue's job ids drop the duplicate).
 *
 * @example
 * ```ts
 * const outbox = new MessagingOutbox({ queue })
 * await outbox.migrate(pool) // once: creates the table
 * await client.query('BEGIN')
 * await client.query('UPDATE orders SET status = $1 WHERE id = $2', ['shipped', order.id])
 * await outbox.add(client, { sender_phone, to_phone, type: 'text', content: 'Shipped!' }, { id: `order-${order.id}-shipped` })
 * await client.query('COMMIT')
 * const relay = outbox.relay({ pool }) // in the workers, or a process of its own
 * ```
 */
export class MessagingOutbox {
  readonly #queue: MessagingQueue;
  readonly #table: OutboxTable;
  /** How the relay adds its sends to the queue (the queue's own enqueuer). */
  readonly #adder: StoredSendAdder;

  constructor(options: MessagingOutboxOptions) {
    checkOptionKeys(options, OUTBOX_KEYS, 'Invalid MessagingOutbox options');
    const adder = storedSendAdder(options?.queue);
    if (!adder) {
      throw new ValidationError(
        'Invalid MessagingOutbox options',
        [{ path: 'queue', message: "must be a MessagingQueue (new MessagingQueue({ connection, name: 'sms' }))" }],
        { code: 'validation.options' },
      );
    }
    this.#queue = options.queue;
    this.#adder = adder;
    this.#table = outboxTable(options.schema ?? 'public', options.table ?? 'tenant_messaging_outbox');
  }

  /**
   * Creates the outbox table (and its schema) if it does not exist. Idempotent; safe from several
   * processes at once (an advisory lock). Run it once per deployment, or copy the SQL it runs
   * (`outbox.sql`) into your migrations.
   *
   * @example
   * ```ts
   * await outbox.migrate(pool)
   * ```
   */
  async migrate(client: Queryable): Promise<void> {
    checkQueryable(client, 'client');
    await client.query(this.#table.migration);
  }

  /**
   * The SQL `migrate` runs, for your own migration tool.
   *
   * @example
   * ```ts
   * fs.writeFileSync('migrations/0042_messaging_outbox.sql', outbox.sql)
   * ```
   */
  get sql(): string {
    return this.#table.migration;
  }

  /**
   * Adds a message inside your transaction: checked exactly as `messages.send` checks it (a bad
   * one throws `ValidationError` before your transaction is touched), then one INSERT (and a
   * NOTIFY that wakes the relays when you commit) inside a savepoint, so that a failed INSERT
   * leaves your transaction usable. Resolves with the id. `tx` must be inside `BEGIN … COMMIT`: a
   * pool, or a client in autocommit, is refused with a `ValidationError` and nothing is written (a
   * message committed on its own would be sent even if your change rolled back).
   *
   * @example
   * ```ts
   * await outbox.add(client, { sender_phone, to_phone, type: 'text', content: 'Shipped!' }, { id: 'order-42-shipped' })
   * ```
   */
  async add(tx: Queryable, params: SendMessageParams, options: OutboxAddOptions = {}): Promise<string> {
    checkQueryable(tx, 'tx');
    checkOptionKeys(options, ADD_KEYS, 'Invalid outbox.add options');
    if (isPool(tx)) throw notATransaction('is a pool: each of its queries commits on its own');
    const id = checkJobId(options?.id, 'id') ?? randomUUID();
    const stored = await storedParams(params);
    // A savepoint: refused outside a transaction block (where a row would commit on its own, and be
    // sent even if your change rolled back), and what keeps your transaction usable if the INSERT fails.
    try {
      await tx.query(`SAVEPOINT ${SAVEPOINT}`);
    } catch (error) {
      if (isOutsideTransaction(error))
        throw notATransaction('ran its query outside a transaction block (autocommit)', error);
      throw error;
    }
    try {
      await tx.query(this.#table.insert, [this.#queue.name, id, JSON.stringify(stored), this.#table.channel]);
    } catch (error) {
      await tx.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`).catch(() => undefined);
      throw error;
    }
    await tx.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    return id;
  }

  /**
   * Starts handing committed messages to the queue: rows are claimed with `FOR UPDATE SKIP
   * LOCKED` (several relays share the work), added to the queue with their id as job id, then
   * deleted, in one transaction of `pool`. Wakes on the NOTIFY of each commit, and polls every
   * `interval` ms as a floor. Run it in your workers, or in a process of its own.
   *
   * @example
   * ```ts
   * const relay = outbox.relay({ pool })
   * process.on('SIGTERM', () => relay.close())
   * ```
   */
  relay(options: OutboxRelayOptions): OutboxRelay {
    checkRelayOptions(options);
    return new OutboxRelay(this.#queue.name, this.#table, this.#adder, options);
  }
}

const OUTBOX_KEYS = { '': { queue: true, table: true, schema: true } satisfies KnownKeys<MessagingOutboxOptions> };
const ADD_KEYS = { '': { id: true } satisfies KnownKeys<OutboxAddOptions> };
const RELAY_KEYS = {
  '': { pool: true, batch: true, interval: true, logger: true } satisfies KnownKeys<OutboxRelayOptions>,
};

/** Checks `outbox.relay()`'s options, every issue at once, before its pool is touched. */
export function checkRelayOptions(options: OutboxRelayOptions): void {
  checkOptionKeys(options, RELAY_KEYS, 'Invalid outbox.relay options');
  const issues: Issue[] = [];
  if (typeof options?.pool?.connect !== 'function') {
    issues.push({ path: 'pool', message: 'must be a node-postgres Pool on the database of the outbox table' });
  }
  for (const [path, unit] of [
    ['batch', 'rows'],
    ['interval', 'ms'],
  ] as const) {
    const issue = wholeIssue(path, options?.[path], unit);
    if (issue) issues.push(issue);
  }
  if (issues.length > 0)
    throw new ValidationError('Invalid outbox.relay options', issues, { code: 'validation.options' });
}

const SAVEPOINT = 'tenant_messaging_outbox_add';

/** PostgreSQL's refusal of a SAVEPOINT outside a transaction block (25P01), as a driver or an adapter passes it on. */
function isOutsideTransaction(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '25P01' || /can only be used in transaction blocks/.test(String(message));
}

/** A node-postgres `Pool` (or one like it): it lends a client per query, so no query of it is in your transaction. */
function isPool(value: Queryable): boolean {
  const pool = value as { totalCount?: unknown; idleCount?: unknown; release?: unknown };
  return typeof pool.totalCount === 'number' && typeof pool.idleCount === 'number' && pool.release === undefined;
}

function notATransaction(what: string, cause?: unknown): ValidationError {
  return new ValidationError(
    'Invalid outbox call',
    [
      {
        path: 'tx',
        message: `${what}; pass the client of your transaction (const client = await pool.connect(); await client.query('BEGIN'); … outbox.add(client, …); await client.query('COMMIT')), or your query builder's transaction through an adapter (README)`,
      },
    ],
    cause === undefined ? undefined : { cause },
  );
}

function checkQueryable(value: unknown, path: string): void {
  if (typeof (value as Queryable | null)?.query !== 'function') {
    throw new ValidationError('Invalid outbox call', [
      {
        path,
        message:
          'must have node-postgres query(text, values): a pg Client or PoolClient inside your BEGIN … COMMIT, or an adapter (README)',
      },
    ]);
  }
}
