import type { PlaceStore } from '../types.js';
import type { PgPoolLike, SchemaReady } from './schema.js';

/** The fleet gate's places in a PostgreSQL table, an admission one function call (one round trip). */
export function postgresPlaces(pool: PgPoolLike, ready: SchemaReady, key: string): PlaceStore {
  return {
    admit: async (member, limit, leaseMs) => {
      await ready();
      const { rows } = await pool.query('SELECT tenant_messaging_fleet_admit($1, $2, $3, $4) AS wait', [
        key,
        limit,
        leaseMs,
        member,
      ]);
      return Number(rows[0]?.['wait']);
    },
    settle: async (member, windowMs) => {
      await pool.query(
        `UPDATE tenant_messaging_fleet_place SET ends_at = clock_timestamp() + $3 * interval '1 millisecond' WHERE key = $1 AND member = $2`,
        [key, member, windowMs],
      );
    },
    renew: async (member, leaseMs) => {
      await ready();
      const { rowCount } = await pool.query(
        `UPDATE tenant_messaging_fleet_place SET ends_at = clock_timestamp() + $3 * interval '1 millisecond'
          WHERE key = $1 AND member = $2 AND ends_at > clock_timestamp()`,
        [key, member, leaseMs],
      );
      return rowCount === 1;
    },
    reserve: async (estimateMs, windowMs, limit) => {
      await ready();
      const { rows } = await pool.query('SELECT tenant_messaging_fleet_reserve($1, $2, $3, $4) AS wait', [
        key,
        estimateMs,
        windowMs,
        limit,
      ]);
      return Number(rows[0]?.['wait']);
    },
    sweep: async () => {
      await ready();
      await pool.query('DELETE FROM tenant_messaging_fleet_place WHERE ends_at <= clock_timestamp()');
      await pool.query('DELETE FROM tenant_messaging_fleet_turn WHERE turn <= clock_timestamp()');
    },
  };
}
