import type { OwnedWrites } from '../types.js';
import type { PgPoolLike } from './schema.js';

/**
 * The write and the proof of ownership in one statement. BullMQ's `job` table (the pool's
 * search_path is BullMQ's schema) holds the token of the worker that claimed an active job; a
 * stalled job reclaimed since has another token, or none while it waits.
 */
const OWNED_WRITE = `WITH owned AS (
  UPDATE job SET data = $4::jsonb
   WHERE queue = $1 AND id = $2 AND state = 'active' AND lock_token = $3
  RETURNING 1
)
SELECT (SELECT count(*) FROM owned)::int AS written,
       EXISTS (SELECT 1 FROM job WHERE queue = $1 AND id = $2) AS present`;

/** A job's data written only by the worker that holds its lock (PostgreSQL). */
export function postgresOwnedWrites(pool: PgPoolLike, queue: string): OwnedWrites {
  return {
    async write(id, token, data) {
      const { rows } = await pool.query(OWNED_WRITE, [queue, id, token, JSON.stringify(data)]);
      const row = rows[0];
      if (row?.['written'] === 1) return 'written';
      return row?.['present'] === true ? 'lost' : 'gone';
    },
  };
}
