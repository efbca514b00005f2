import { ValidationError } from '../../index.js';
import { requirePeer } from '../../seam/peers.js';
import { loadBullmq } from '../load.js';
import type { QueueConnection } from '../types.js';
import { backendOf, isPostgres } from './backend.js';
import { checkConnection } from './connection-check.js';
import { MIGRATION_SQL, migrateSchema, type PgPoolLike } from './postgres/schema.js';

export { MIGRATION_SQL };

/** What migrate() needs of node-postgres: a pool it can end, or yours. */
interface PgModule {
  Pool: new (config: object) => PgPoolLike & { end(): Promise<void> };
}

/**
 * Creates every table tenant-messaging/bullmq needs on PostgreSQL, BullMQ's own first (its
 * `runMigrations`), then the SDK's (`MIGRATION_SQL`: the fleet gate's places, the update log, the
 * webhook relay's state) in BullMQ's schema. Idempotent, safe from several processes at once. Run
 * it once per deployment with a role that may create tables: the application's role then needs no
 * DDL at run time. (The outbox's table lives in your application's database: `outbox.migrate()`.)
 *
 * @example
 * ```ts
 * import { migrate } from 'tenant-messaging/bullmq'
 * await migrate({ postgres: process.env.DATABASE_URL }) // a deployment step
 * ```
 */
export async function migrate(connection: QueueConnection): Promise<void> {
  checkConnection(connection, 'Invalid migrate() connection');
  if (!isPostgres(connection)) {
    throw new ValidationError('Invalid migrate() connection', [
      {
        path: 'connection',
        message: 'must be { postgres: … }: Redis needs no migration (its keys are made as they are used)',
      },
    ]);
  }
  const bull = loadBullmq();
  backendOf(bull, connection); // checks that pg is installed
  const given = connection.postgres;
  const isPool = typeof (given as { connect?: unknown }).connect === 'function';
  const {
    schema = 'bullmq',
    migrate: _migrate,
    skipMigrations: _skip,
    skipVersionCheck: _check,
    ...config
  } = typeof given === 'string'
    ? { connectionString: given }
    : isPool
      ? {}
      : (given as Record<string, unknown> & { schema?: string });
  const pg = requirePeer('pg') as PgModule;
  const pool = isPool ? (given as unknown as PgPoolLike) : new pg.Pool({ ...config, max: 1 });
  try {
    const client = await pool.connect();
    try {
      // BullMQ's schema: the option's (default bullmq), or the first of your pool's search_path.
      const target = isPool ? await firstOnSearchPath(client) : String(schema);
      await (bull as unknown as { runMigrations(client: unknown, schema?: string): Promise<number> }).runMigrations(
        client,
        target,
      );
      await client.query(`SET search_path TO "${target.replaceAll('"', '""')}"`);
      await migrateSchema(client);
    } finally {
      await client.query('RESET search_path').catch(() => undefined);
      client.release();
    }
  } finally {
    if (!isPool) await (pool as PgPoolLike & { end(): Promise<void> }).end();
  }
}

/** The first schema of a connection's search_path, unquoted. */
async function firstOnSearchPath(client: { query(text: string): Promise<unknown> }): Promise<string> {
  const result = (await client.query("SELECT split_part(current_setting('search_path'), ',', 1) AS first")) as {
    rows: { first: string }[];
  };
  return (result.rows[0]?.first ?? 'bullmq').trim().replace(/^"|"$/g, '') || 'bullmq';
}
