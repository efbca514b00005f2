import { MessagingError } from '../../../index.js';
import SCHEMA from './schema.sql';

/** What the SDK needs of node-postgres: a pool (BullMQ's, so the queue's schema). */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount?: number | null }>;
  connect(): Promise<{ query(text: string, values?: unknown[]): Promise<unknown>; release(): void }>;
}

/** Resolves once the SDK's tables are there; every store operation on PostgreSQL awaits it first. */
export type SchemaReady = () => Promise<void>;

/** The pool of a BullMQ object on the PostgreSQL backend (its search_path is the queue's schema). */
export function poolOf(queue: { getBackend(): unknown }): PgPoolLike {
  return (queue.getBackend() as { connection: { pool: PgPoolLike } }).connection.pool;
}

/** Whether every table and function of schema.sql exist, asked without any DDL. */
const PRESENT = `SELECT to_regclass('tenant_messaging_fleet_place') IS NOT NULL
  AND to_regclass('tenant_messaging_update') IS NOT NULL
  AND to_regclass('tenant_messaging_webhook_state') IS NOT NULL
  AND to_regclass('tenant_messaging_fleet_turn') IS NOT NULL
  AND to_regprocedure('tenant_messaging_fleet_admit(text,integer,bigint,text)') IS NOT NULL
  AND to_regprocedure('tenant_messaging_fleet_reserve(text,double precision,double precision,integer)') IS NOT NULL AS present`;

/** The advisory lock that keeps processes starting together from racing on the catalog. */
const LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('tenant-messaging:schema', 0))";

/**
 * The SQL of every table and function the SDK needs, for your own migration tool: run it in the
 * schema of BullMQ's tables (`SET search_path TO bullmq` first, or BullMQ's `schema` option's).
 */
export const MIGRATION_SQL: string = SCHEMA;

/**
 * Creates what is missing of the SDK's tables in the client's schema (its search_path), in one
 * transaction under an advisory lock. Idempotent.
 */
export async function migrateSchema(client: {
  query(text: string, values?: unknown[]): Promise<unknown>;
}): Promise<void> {
  try {
    await client.query('BEGIN');
    await client.query(LOCK);
    await client.query(SCHEMA);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * The schema check of one pool, run once (a failure is tried again by the next call): when the
 * tables are there, as after `migrate()`, no DDL is run at all, so the application's role needs
 * none; when they are missing, they are created, and a role that may not gets an error that says
 * what to run.
 */
export function schemaReady(pool: PgPoolLike): SchemaReady {
  let ready: Promise<void> | undefined;
  const run = async () => {
    const { rows } = await pool.query(PRESENT);
    if (rows[0]?.['present'] === true) return;
    const client = await pool.connect();
    try {
      await migrateSchema(client);
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== '42501') throw error;
      throw new MessagingError(
        "tenant-messaging/bullmq's tables are missing from the queue's schema, and this role may not create them: run migrate(connection) once with a role that may (a deployment step), or apply MIGRATION_SQL with your migration tool. The application's role then needs no DDL.",
        { cause: error, code: 'datastore.schema_missing' },
      );
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
