import { sleep } from '../../../seam/timing.js';
import type { MessagingUpdate } from '../../types.js';
import { EVENTS_KEPT, parsed, stamped, type UpdateLog } from '../update-log.js';
import type { PgPoolLike, SchemaReady } from './schema.js';

/**
 * Why not BullMQ's event table on PostgreSQL: its ids come from a sequence, taken when a row is
 * inserted, not when it is committed. Two workers publishing at once can commit ids 101 then 100:
 * a reader that read 101 and moved past it never sees 100 (the fleet test lost a `sent` update
 * that way: README, "Choosing a backend"). Its table is also never trimmed (BullMQ's `trimEvents` is not
 * implemented there).
 *
 * So updates have a table of their own (schema.sql), in the queue's schema, read like this: each poll reads
 * the rows after a settled position that it has not yielded yet, and the position moves past a
 * row only once the row is older than `SETTLE_MS`, far longer than a single-row insert takes to
 * commit. A row committed late, with an id below rows already read, is still found and yielded.
 * The table keeps the newest `EVENTS_KEPT` updates of each queue.
 */

/** A row's commit lags its insert by far less than this; the read position waits this long. */
const SETTLE_MS = 5_000;
/** How often a reader looks for new rows. */
const POLL_MS = 100;
/** Rows a poll reads at most. */
const BATCH = 1_000;
/** One publish in this many trims the queue's table to its newest `EVENTS_KEPT` rows. */
const TRIM_EVERY = 200;

export function postgresUpdateLog(pool: PgPoolLike, prepared: SchemaReady, name: string): UpdateLog {
  const stop = new AbortController();
  let published = 0;
  return {
    publish: async (update) => {
      await prepared();
      await pool.query('INSERT INTO tenant_messaging_update (queue, body) VALUES ($1, $2)', [name, stamped(update)]);
      if (++published % TRIM_EVERY === 0) await trim(pool, name);
    },
    position: async (from) => {
      if (from === 'start') return '0';
      if (from !== undefined && from !== 'now') return from;
      await prepared();
      const { rows } = await pool.query(
        'SELECT coalesce(max(id), 0)::text AS id FROM tenant_messaging_update WHERE queue = $1',
        [name],
      );
      return String(rows[0]?.['id'] ?? '0');
    },
    read: async function* (position, signal) {
      await prepared();
      const stopped = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
      yield* readRows(pool, name, position, stopped);
    },
    close: async () => {
      stop.abort();
    },
  };
}

async function* readRows(
  pool: PgPoolLike,
  queue: string,
  position: string,
  signal: AbortSignal,
): AsyncGenerator<MessagingUpdate> {
  let settled = /^\d+$/.test(position) ? position : '0';
  /** Ids after `settled` already yielded: read again each poll only to be left out. */
  let seen: string[] = [];
  while (!signal.aborted) {
    let rows: Record<string, unknown>[];
    let old: Record<string, unknown>[];
    try {
      ({ rows } = await pool.query(
        `SELECT id::text AS id, body FROM tenant_messaging_update
        WHERE queue = $1 AND id > $2 AND NOT (id = ANY($3::bigint[])) ORDER BY id LIMIT ${BATCH}`,
        [queue, settled, seen],
      ));
      // Asked before yielding: `rows` holds no row committed after this, whatever the wait in between.
      ({ rows: old } = await pool.query(
        `SELECT coalesce(max(id), $2)::text AS id FROM tenant_messaging_update
          WHERE queue = $1 AND id > $2 AND created_at < clock_timestamp() - $3 * interval '1 millisecond'`,
        [queue, settled, SETTLE_MS],
      ));
    } catch (error) {
      // A restart, a failover, a terminated connection: the pool opens a new one; read on from the
      // same position (nothing is skipped, nothing yielded twice: `seen` is kept).
      if (!isTransient(error)) throw error;
      await sleep(RETRY_MS, signal).catch(() => undefined);
      continue;
    }
    for (const row of rows) {
      const id = String(row['id']);
      seen.push(id);
      const update = parsed(String(row['body']), id);
      if (update) yield update;
      if (signal.aborted) return;
    }
    // The position passes rows old enough that every row before them has committed; with a full
    // batch, never past its last row (the rows after it are not read yet).
    let next = BigInt(String(old[0]?.['id'] ?? settled));
    const last = rows.at(-1);
    if (rows.length === BATCH && last && BigInt(String(last['id'])) < next) next = BigInt(String(last['id']));
    settled = next.toString();
    seen = seen.filter((id) => BigInt(id) > next);
    if (rows.length < BATCH) await sleep(POLL_MS, signal).catch(() => undefined);
  }
}

async function trim(pool: PgPoolLike, queue: string): Promise<void> {
  await pool.query(
    `DELETE FROM tenant_messaging_update WHERE queue = $1 AND id <= (
       SELECT id FROM tenant_messaging_update WHERE queue = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
    [queue, EVENTS_KEPT],
  );
}

/** The wait before reading again after a lost connection. */
const RETRY_MS = 500;

/**
 * Errors of a connection the pool replaces by itself: the server shutting down or restarting
 * (57P01-57P03), a connection exception (class 08), or the socket itself.
 */
function isTransient(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (/^57P0[123]$/.test(code) || code.startsWith('08'))) return true;
  if (typeof code === 'string' && ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'].includes(code)) return true;
  return /Connection terminated|the database system is (starting up|shutting down)/i.test(String(message));
}
