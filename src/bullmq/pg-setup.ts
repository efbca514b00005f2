/** What the SDK needs of node-postgres: a pool (BullMQ's, so the queue's schema). */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  connect(): Promise<{ query(text: string, values?: unknown[]): Promise<unknown>; release(): void }>;
}

/**
 * Runs `sql` (CREATE ... IF NOT EXISTS) once per `pool`'s first use, in a transaction under an
 * advisory lock named `lock`, so that processes starting together do not race on the catalog. A
 * failed set-up is tried again by the next call, not remembered.
 */
export function pgSetUp(pool: PgPoolLike, lock: string, sql: string): () => Promise<void> {
  let ready: Promise<void> | undefined;
  const run = async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lock]);
      await client.query(sql);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  return () => {
    ready ??= run().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
}

/** The pool of a BullMQ object on the PostgreSQL backend (its search_path is the queue's schema). */
export function poolOf(queue: { getBackend(): unknown }): PgPoolLike {
  return (queue.getBackend() as { connection: { pool: PgPoolLike } }).connection.pool;
}
