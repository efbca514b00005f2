/**
 * What the outbox files share: PostgreSQL with the queue in the same database (a fixture of
 * ../fixture.ts), a pool on it, and one transaction at a time. Runs the built package in the
 * relay's child processes: built here when dist is missing.
 */
import { type ChildProcess, execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { BACKENDS, type BackendFixture, startBackendFixture, storedCounts, until } from '../fixture.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
export const available = BACKENDS.find(([name]) => name === 'postgres')?.[1] === true;

/** The file's PostgreSQL, pool and child processes, set up before its tests and closed after. */
export interface OutboxFixture {
  readonly f: BackendFixture;
  readonly pool: pg.Pool;
  /** The database's connection string. */
  readonly url: string;
  readonly children: Set<ChildProcess>;
  /** How many logs the sandbox stored with this content. */
  stored(content: string): number;
  /** Runs `body` in a transaction of its own, then commits (or rolls back). */
  transaction(commit: boolean, body: (client: pg.PoolClient) => Promise<void>): Promise<void>;
  /**
   * Waits until nothing more can be sent: no row left in `table` (`SELECT count(*)` of `where`) for
   * the relay to hand off, and no job of `queue` waiting or running. What the sandbox stored then
   * is final, so a count of it is a fact, not a snapshot (no duplicate can come later).
   */
  drained(queue: { counts(): Promise<{ waiting: number; active: number }> }, rows: string): Promise<void>;
}

/** Registers the file's beforeAll and afterAll; the fixture is read inside tests. */
export function useOutboxFixture(): OutboxFixture {
  let f: BackendFixture;
  let pool: pg.Pool;
  const children = new Set<ChildProcess>();
  beforeAll(async () => {
    if (!available) return;
    if (!existsSync(`${root}dist/bullmq/index.js`)) execSync('npm run build', { cwd: root, stdio: 'ignore' });
    f = await startBackendFixture('postgres');
    const url = (f.connection as { postgres: { connectionString: string } }).postgres.connectionString;
    pool = new pg.Pool({ connectionString: url, max: 8 });
    // Idle clients are cut when the cluster stops at the end, or by a test that terminates every
    // connection: not these tests' concern.
    pool.on('error', () => undefined);
  }, 60_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await pool?.end();
    await f?.close();
  });
  return {
    get f() {
      return f;
    },
    get pool() {
      return pool;
    },
    get url() {
      return (f.connection as { postgres: { connectionString: string } }).postgres.connectionString;
    },
    children,
    stored: (content) => storedCounts(f.sandbox, [content])[0] as number,
    async drained(queue, rows) {
      let last = '';
      await until(
        async () => {
          const left = (await pool.query(rows)).rows[0].n as number;
          const { waiting, active } = await queue.counts();
          last = `${left} rows, ${waiting} waiting, ${active} active`;
          return left === 0 && waiting === 0 && active === 0;
        },
        45_000,
        () => `the outbox and the queue to drain (${last})`,
      );
    },
    async transaction(commit, body) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await body(client);
        await client.query(commit ? 'COMMIT' : 'ROLLBACK');
      } finally {
        client.release();
      }
    },
  };
}
