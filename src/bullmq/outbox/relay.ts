import type { Logger } from '../../index.js';
import { sleep } from '../../seam/timing.js';
import type { StoredSendAdder } from '../queue/enqueue.js';
import type { StoredParams } from '../send/params.js';
import type { OutboxTable } from './sql.js';

/** What the relay needs of node-postgres: a pool to check clients out of (yours). */
export interface OutboxPool {
  connect(): Promise<OutboxClient>;
}

/** A pooled client, as node-postgres gives it. */
export interface OutboxClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  release(error?: Error | boolean): void;
  on?(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown;
  on?(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  off?(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown;
  off?(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
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

/** The wait after a failed hand-off before trying again, and the first before listening again. */
const RETRY_MS = 1_000;
/** The longest wait between two tries at listening again. */
const MAX_RELISTEN_MS = 30_000;

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

  constructor(queue: string, table: OutboxTable, internals: StoredSendAdder, options: OutboxRelayOptions) {
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
    internals: StoredSendAdder,
    options: OutboxRelayOptions,
    batch: number,
    interval: number,
  ): Promise<void> {
    const signal = this.#stop.signal;
    const listening = this.#keepListening(options, table.channel, queue);
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
      await listening;
    }
  }

  /**
   * Holds a LISTEN connection for as long as the relay runs. When it dies (a restart, a failover,
   * `pg_terminate_backend`), it is released as broken and opened again after a pause, while the
   * relay polls every `interval`; once listening again, the relay looks at once for what was
   * committed meanwhile. Its errors are reported to the logger, never thrown at the host.
   */
  async #keepListening(options: OutboxRelayOptions, channel: string, queue: string): Promise<void> {
    const signal = this.#stop.signal;
    let failures = 0;
    while (!signal.aborted) {
      let listened = false;
      const lost = await this.#listenOnce(options.pool, channel, queue, () => {
        listened = true;
      }).catch((error: unknown) => error);
      if (signal.aborted) return;
      // A connection that listened, then was lost, starts a new outage: warned about, and retried
      // after the first pause again.
      failures = lost === undefined ? 0 : listened ? 1 : failures + 1;
      // Once per outage, not once per try: a database that stays down must not flood the log.
      if (failures <= 1) {
        options.logger?.warn('outbox relay: the LISTEN connection was lost; polling until it is back', {
          error: String(lost),
        });
      }
      await sleep(Math.min(RETRY_MS * 2 ** Math.min(failures, 5), MAX_RELISTEN_MS), signal).catch(() => undefined);
    }
  }

  /**
   * One LISTEN connection, from connecting to its end (`onListening` once its LISTEN is answered):
   * resolves when it ended because the relay stops, rejects with why it was lost otherwise. Back to the pool unsubscribed (UNLISTEN *) when
   * closed cleanly, released as broken when lost.
   */
  async #listenOnce(pool: OutboxPool, channel: string, queue: string, onListening: () => void): Promise<void> {
    const client = await pool.connect();
    let broken: Error | undefined;
    let onLost: (error?: Error) => void = () => undefined;
    const lost = new Promise<never>((_, reject) => {
      onLost = (error?: Error) => {
        broken = error ?? new Error('the connection ended');
        reject(broken);
      };
    });
    lost.catch(() => undefined);
    const onNotification = (message: { channel: string; payload?: string | undefined }) => {
      if (message.channel !== channel || message.payload !== queue) return;
      this.#notified = true;
      this.#wake?.();
    };
    client.on?.('error', onLost);
    client.on?.('end', onLost);
    client.on?.('notification', onNotification);
    try {
      await Promise.race([client.query(`LISTEN "${channel}"`), lost]);
      onListening();
      // Whatever was committed while nobody listened is looked for now.
      this.#notified = true;
      this.#wake?.();
      const signal = this.#stop.signal;
      const stopped = new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([stopped, lost]);
      // Back to your pool without the subscription: its next user gets none of our NOTIFYs.
      await Promise.race([client.query('UNLISTEN *'), lost]);
    } catch (error) {
      broken ??= error as Error;
      throw error;
    } finally {
      client.off?.('notification', onNotification);
      // A broken connection keeps the 'error' listener: it may still emit after its release, and is destroyed.
      if (!broken) {
        client.off?.('error', onLost);
        client.off?.('end', onLost);
      }
      client.release(broken ?? false);
    }
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
  internals: StoredSendAdder,
  batch: number,
): Promise<number> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A connection lost while this client is out of the pool (between two queries, while the jobs
  // are added) is emitted on the client: without a listener it would crash the process.
  const onError = (error?: Error) => {
    broken ??= error ?? new Error('the connection ended');
  };
  client.on?.('error', onError);
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
    if (!broken) client.off?.('error', onError);
    // A client whose transaction failed is not given back to the pool as if it were clean.
    client.release(broken);
  }
}
