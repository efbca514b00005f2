/**
 * What the Redis fault files share: a sandbox and a client on it, throwaway Redis servers stopped
 * when the file ends, and a worker of the fleet on one of them.
 */
import { MessagingClient } from 'tenant-messaging';
import { MessagingWorker } from 'tenant-messaging/bullmq';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll } from 'vitest';
import { type RedisSettings, redisAvailable, startRedis, type TestRedis } from '../../../helpers/redis.js';

export const available = redisAvailable();

/** The file's sandbox, Redis servers and workers. */
export interface RedisFaults {
  readonly sandbox: RunningSandbox<'acme' | 'globex'>;
  /** A Redis of its own, stopped when the file ends. */
  redis(settings?: RedisSettings): Promise<TestRedis>;
  /** A worker on `server`'s queue `name`, sending through the sandbox. */
  worker(
    server: TestRedis,
    name: string,
    extra?: Partial<ConstructorParameters<typeof MessagingWorker>[0]>,
  ): MessagingWorker;
}

/** Registers the file's beforeAll and afterAll; the fixture is read inside tests. */
export function useRedisFaults(): RedisFaults {
  let sandbox: RunningSandbox<'acme' | 'globex'>;
  let client: MessagingClient;
  const servers: TestRedis[] = [];
  beforeAll(async () => {
    if (!available) return;
    sandbox = await startSandbox({ delivery: { deliveredAfterMs: 100, readAfterMs: 200 } });
    const { baseUrl, keys } = sandbox.tenants.acme;
    client = new MessagingClient({ baseUrl, apiKey: keys.full, timeout: 2_000 });
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await sandbox?.close();
  });
  return {
    get sandbox() {
      return sandbox;
    },
    async redis(settings = {}) {
      const server = await startRedis(settings);
      servers.push(server);
      return server;
    },
    worker: (server, name, extra = {}) =>
      new MessagingWorker({
        connection: server.connection,
        name,
        client,
        concurrency: 4,
        lockDuration: 5_000,
        stalledInterval: 2_000,
        ...extra,
      }),
  };
}
