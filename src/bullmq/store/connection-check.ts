import { ValidationError } from '../../index.js';

/**
 * Checks a connection: Redis (ioredis options or instance) or PostgreSQL (`{ postgres }` with a
 * connection string, a pool config or a `pg.Pool`).
 */
export function checkConnection(connection: unknown, what: string): void {
  const postgres = (connection as { postgres?: unknown } | null)?.postgres;
  const isObject = (value: unknown) => typeof value === 'object' && value !== null;
  const fine =
    isObject(connection) &&
    (!('postgres' in (connection as object)) ||
      isObject(postgres) ||
      (typeof postgres === 'string' && postgres !== ''));
  if (!fine) {
    throw new ValidationError(
      what,
      [
        {
          path: 'postgres' in Object(connection) ? 'connection.postgres' : 'connection',
          message:
            "must be ioredis options such as { host: '127.0.0.1', port: 6379 } or an ioredis instance (Redis), or { postgres: 'postgres://…' | pool config | pg.Pool } (PostgreSQL)",
        },
      ],
      { code: 'validation.options' },
    );
  }
}
