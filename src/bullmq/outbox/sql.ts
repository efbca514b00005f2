import { ValidationError } from '../../index.js';

/** The outbox table's statements, with its name quoted once. */
export interface OutboxTable {
  /** Creates the schema and the table if they do not exist. */
  readonly migration: string;
  /** $1 queue, $2 id, $3 params (JSON), $4 channel: inserts (a repeated id adds nothing) and notifies. */
  readonly insert: string;
  /** $1 queue, $2 batch: claims the oldest rows, skipping those another relay holds. */
  readonly claim: string;
  /** $1 queue, $2 ids: deletes the rows handed off. */
  readonly remove: string;
  /** The NOTIFY channel the relays LISTEN on. */
  readonly channel: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function outboxTable(schema: string, table: string): OutboxTable {
  for (const [path, name] of [
    ['schema', schema],
    ['table', table],
  ] as const) {
    if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
      throw new ValidationError(
        'Invalid MessagingOutbox options',
        [
          {
            path,
            message: `must be 1 to 63 letters, digits or '_', not starting with a digit, e.g. 'tenant_messaging_outbox', got ${JSON.stringify(name) ?? String(name)}`,
          },
        ],
        { code: 'validation.options' },
      );
    }
  }
  const name = `"${schema}"."${table}"`;
  return {
    // The advisory lock: two processes migrating at once would race on CREATE ... IF NOT EXISTS.
    migration: `BEGIN;
SELECT pg_advisory_xact_lock(hashtextextended('tenant-messaging:outbox:${schema}.${table}', 0));
CREATE SCHEMA IF NOT EXISTS "${schema}";
CREATE TABLE IF NOT EXISTS ${name} (
  queue text NOT NULL,
  id text NOT NULL,
  params jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (queue, id)
);
CREATE INDEX IF NOT EXISTS "${table}_queue_created_at" ON ${name} (queue, created_at);
COMMIT;`,
    insert: `WITH added AS (
  INSERT INTO ${name} (queue, id, params) VALUES ($1, $2, $3::jsonb) ON CONFLICT (queue, id) DO NOTHING
) SELECT pg_notify($4, $1)`,
    claim: `SELECT id, params FROM ${name} WHERE queue = $1 ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    remove: `DELETE FROM ${name} WHERE queue = $1 AND id = ANY($2::text[])`,
    channel: `tenant_messaging_outbox_${table}`.slice(0, 63),
  };
}
