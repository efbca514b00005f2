import type { Queue } from 'bullmq';
import type { Backend } from './backend.js';
import { poolOf, schemaReady } from './postgres/schema.js';

/**
 * The webhook relay's small state, in the relayed queue's datastore: its reading position and the
 * endpoints disabled by a 410 (by a hash of their URL). Never a secret, never a URL.
 */
export interface RelayState {
  all(): Promise<Record<string, string>>;
  get(field: string): Promise<string | undefined>;
  set(fields: Record<string, string>): Promise<void>;
  remove(field: string): Promise<void>;
}

/** The state: one Redis hash (`bull:<name>:webhooks`), or rows of one PostgreSQL table in the queue's schema. */
export function relayStateOf(backend: Backend, queue: Queue): RelayState {
  if (backend.kind === 'redis') {
    const key = queue.toKey('webhooks');
    const redis = queue.getBackend().client;
    return {
      all: async () => (await redis).hgetall(key),
      get: async (field) => (await (await redis).hget(key, field)) ?? undefined,
      set: async (fields) => {
        await (await redis).hset(key, fields);
      },
      remove: async (field) => {
        await (await redis).hdel(key, field);
      },
    };
  }
  const pool = poolOf(queue);
  // Its table is in schema.sql, made by migrate() (or on first use by a role that may).
  const prepared = schemaReady(pool);
  const name = queue.name;
  const query = async (text: string, values: unknown[]) => {
    await prepared();
    return (await pool.query(text, values)).rows;
  };
  return {
    all: async () => {
      const rows = await query('SELECT field, value FROM tenant_messaging_webhook_state WHERE queue = $1', [name]);
      return Object.fromEntries(rows.map((row) => [String(row['field']), String(row['value'])]));
    },
    get: async (field) => {
      const rows = await query('SELECT value FROM tenant_messaging_webhook_state WHERE queue = $1 AND field = $2', [
        name,
        field,
      ]);
      return rows[0] === undefined ? undefined : String(rows[0]['value']);
    },
    set: async (fields) => {
      for (const [field, value] of Object.entries(fields)) {
        await query(
          `INSERT INTO tenant_messaging_webhook_state (queue, field, value) VALUES ($1, $2, $3)
           ON CONFLICT (queue, field) DO UPDATE SET value = EXCLUDED.value`,
          [name, field, value],
        );
      }
    },
    remove: async (field) => {
      await query('DELETE FROM tenant_messaging_webhook_state WHERE queue = $1 AND field = $2', [name, field]);
    },
  };
}
