import { sleep } from '../internal/sleep.js';
import type { Logger } from '../types/logger.js';
import type { OutboxTable } from './outbox-sql.js';
import type { StoredParams } from './params.js';
import type { QueueInternals } from './queue-internals.js';

/** What the relay needs of node-postgres: a pool to check clients out of (yours). */
export interface OutboxPool {
  connect(): Promise<OutboxClient>;
}

/** A pooled client, as node-postgres gives it. */
export interface OutboxClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  release(error?: Error | boolean): void;
  on?(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown;
}

/** Options of `outbox.relay()`. */
export interface OutboxRelayOptions {
  /** A node-postgres pool on the application's database: the relay holds one of its clients to LISTEN. */
  pool: OutboxPool;
  /**
   * Rows claimed and handed off per transaction.
   * @default 100
   */
  batch?: number;
  /**
   * Ms between looks at the table when no NOTIFY came: the floor under LISTEN/NOTIFY.
   * @default 1000
   */
  interval?: number;
  /**
   * Where the relay logs a failed hand-off (it retries it).
   * @default none: silent
   */
  logger?: Logger;
}

/** The wait after a failed hand-off before trying again. */
const RETRY_MS = 1_000;

/**
 * Hands committed outbox rows to the queue. One transaction per batch: claim the oldest rows
 * (`FOR UPDATE SKIP LOCKED`: another relay skips them), add them to the queue with their id as
 * job id, delete them, commit. A relay killed before the commit leaves the rows, unlocked, for
 * the next one: re-adding them adds nothing, because BullMQ adds a job id once while the job is
 * kept. So each committed message is sent once.
 *
 * @example
 * ```ts
 * const relay = outbox.relay({ pool })
 * await relay.close()
 * ```
 */
export class OutboxRelay {
  readonly #stop = new AbortController();
  readonly #running: Promise<void>;
  #wake: (() => void) | undefined;
  /** A NOTIFY came since the last hand-off began: rows may be waiting, so do not nap. */
  #notified = false;
  #listener: OutboxClient | undefined;

  constructor(queue: string, table: OutboxTable, internals: QueueInternals, options: OutboxRelayOptions) {
    const batch = options.batch ?? 100;
    const interval = options.interval ?? 1_000;
    this.#running = this.#run(queue, table, internals, options, batch, interval);
  }

  /**
   * Stops the relay once the batch in progress is handed off (or rolled back), and releases its
   * clients. Rows not handed off stay in the table for the next relay.
   *
   * @example
   * ```ts
   * process.on('SIGTERM', () => relay.close())
   * ```
   */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  async #run(
    queue: string,
    table: OutboxTable,
    internals: QueueInternals,
    options: OutboxRelayOptions,
    batch: number,
    interval: number,
  ): Promise<void> {
    const signal = this.#stop.signal;
    await this.#listen(options.pool, table.channel, queue).catch((error: unknown) =>
      options.logger?.warn('outbox relay: LISTEN failed; polling only', { error: String(error) }),
    );
    try {
      while (!signal.aborted) {
        let handed = 0;
        this.#notified = false;
        try {
          handed = await handOff(options.pool, queue, table, internals, batch);
        } catch (error) {
          options.logger?.error('outbox relay: a hand-off failed; trying again', { error: String(error) });
          await sleep(RETRY_MS, signal).catch(() => undefined);
          continue;
        }
        // A full batch: more may be waiting. Otherwise wait for a NOTIFY, or the interval.
        if (handed < batch) await this.#nap(interval);
      }
    } finally {
      // Back to your pool without the subscription: the next user of that connection gets none of our NOTIFYs.
      const listener = this.#listener;
      if (listener) {
        await listener.query('UNLISTEN *').catch(() => undefined);
        listener.release();
      }
    }
  }

  async #listen(pool: OutboxPool, channel: string, queue: string): Promise<void> {
    const client = await pool.connect();
    this.#listener = client;
    client.on?.('notification', (message) => {
      if (message.channel !== channel || message.payload !== queue) return;
      this.#notified = true;
      this.#wake?.();
    });
    await client.query(`LISTEN "${channel}"`);
  }

  /** Waits `ms`, or less when a NOTIFY (or close) wakes it; not at all if one came during the hand-off. */
  async #nap(ms: number): Promise<void> {
    if (this.#notified) return;
    const woken = new AbortController();
    this.#wake = () => woken.abort();
    await sleep(ms, AbortSignal.any([woken.signal, this.#stop.signal])).catch(() => undefined);
    this.#wake = undefined;
  }
}

/** One batch: claimed, added to the queue, deleted, committed. Resolves with how many. */
async function handOff(
  pool: OutboxPool,
  queue: string,
  table: OutboxTable,
  internals: QueueInternals,
  batch: number,
): Promise<number> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(table.claim, [queue, batch]);
    if (rows.length > 0) {
      const jobs = rows.map((row) => ({
        id: String(row['id']),
        data: { v: 1 as const, params: row['params'] as StoredParams, phase: 'queued' as const },
      }));
      // Outside the transaction (another datastore): a crash after this and before COMMIT leaves
      // the rows, and the next relay's add of the same job ids adds nothing.
      await internals.addStored(jobs);
      await client.query(table.remove, [queue, jobs.map((job) => job.id)]);
    }
    await client.query('COMMIT');
    return rows.length;
  } catch (error) {
    broken = error as Error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    // A client whose transaction failed is not given back to the pool as if it were clean.
    client.release(broken);
  }
}
