import type { RedisClient } from 'bullmq';
import type { Link } from './confirm.js';
import type { InfoSource } from './replication-info.js';

/** A node connection of ioredis's Cluster, as much of it as is used here. */
interface Node {
  readonly options: { readonly host?: string; readonly port?: number };
  duplicate(options: object): object;
}

/** ioredis's Cluster, as much of it as is used here (BullMQ's client type declares none of it). */
interface ClusterClient {
  /** Per slot, its servers as "host:port", the master first (filled from CLUSTER SLOTS). */
  readonly slots: (string[] | undefined)[];
  nodes(role: 'all'): Node[];
  refreshSlotsCache(callback?: (error?: Error | null) => void): void;
  call(...args: string[]): Promise<unknown>;
}

interface Connection {
  readonly status?: string;
  info(section: string): Promise<string>;
  disconnect(): void;
  on(event: 'error', listener: () => void): unknown;
}

/** `runCommand` as BullMQ's ioredis client has it: a command made by `defineCommand`, by name. */
function runner(raw: object) {
  return (name: string, args: unknown[]): Promise<unknown> =>
    (raw as Record<string, (args: unknown[]) => Promise<unknown>>)[name]?.(args) ??
    Promise.reject(new Error(`no command ${name}`));
}

/**
 * The master of a Redis Cluster that owns the slot of `key` (every key of a queue is in that one
 * slot: its prefix is hash-tagged), with connections of our own to it: `info` reads its
 * `INFO replication`, `link` is where the confirm script and its WAIT go (WAIT counts only the
 * writes of its own connection; sent to another node it would answer for other data).
 *
 * The master is read from ioredis's slots table at every use. After a failover that table is
 * stale until ioredis refreshes it (on MOVED, on a closed connection): every failure here asks
 * for a refresh too, and drops the connection, so the next use reaches the master named then. A
 * node found a replica (a master demoted) counts as a failure.
 */
export function clusterPrimary(client: Promise<RedisClient>, key: string): { info: InfoSource; link: Link } {
  let slot: Promise<number> | undefined;
  let closed = false;
  let seen: string | undefined;
  const listeners = new Set<() => void>();
  const cluster = async () => (await client) as unknown as ClusterClient;

  const slotOf = () => {
    slot ??= cluster().then(async (redis) => Number(await redis.call('CLUSTER', 'KEYSLOT', key)));
    const asked = slot;
    asked.catch(() => {
      if (slot === asked) slot = undefined; // asked again next time
    });
    return asked;
  };
  const refresh = () =>
    void cluster().then(
      (redis) => redis.refreshSlotsCache(),
      () => undefined,
    );

  /** The slot's master as ioredis knows it now ("host:port"), and its node. */
  const master = async (): Promise<{ at: string; node: Node }> => {
    const redis = await cluster();
    const at = redis.slots[await slotOf()]?.[0];
    const node = redis.nodes('all').find((each) => `${each.options.host}:${each.options.port}` === at);
    if (at === undefined || !node) {
      refresh();
      throw new Error("no master of the queue's slot is known now (the Cluster is failing over)");
    }
    if (seen !== undefined && seen !== at) for (const listener of listeners) listener();
    seen = at;
    return { at, node };
  };

  /** One connection of our own to the master now; a new one when the master changed or it failed. */
  const pinned = (options: object) => {
    let current: { at: string; redis: Connection & RedisClient } | undefined;
    return {
      async get(): Promise<Connection & RedisClient> {
        const { at, node } = await master();
        if (closed) throw new Error('closed');
        if (current?.at !== at || current.redis.status === 'end') {
          current?.redis.disconnect();
          // No reconnection: a connection that closed is made again to whatever master is named then.
          const raw = node.duplicate({ retryStrategy: null, connectTimeout: 2_000, readOnly: false, ...options });
          // BullMQ's client runs a defined script by name; a node's own ioredis connection has none.
          const redis = Object.assign(raw, { runCommand: runner(raw) }) as Connection & RedisClient;
          redis.on('error', () => undefined); // its errors reach the call that fails
          current = { at, redis };
        }
        return current.redis;
      },
      failed(): void {
        current?.redis.disconnect();
        current = undefined;
        refresh();
      },
      close(): void {
        current?.redis.disconnect();
        current = undefined;
      },
    };
  };

  // Two connections: an INFO must not wait behind a WAIT.
  const reads = pinned({ commandTimeout: 5_000 });
  const writes = pinned({});
  return {
    info: {
      async read() {
        try {
          const info = await (await reads.get()).info('replication');
          if (/^role:slave/m.test(info)) throw new Error("the node named master of the queue's slot is a replica now");
          return info;
        } catch (error) {
          reads.failed();
          throw error;
        }
      },
      onChange: (listener) => void listeners.add(listener),
    },
    link: {
      get: () => writes.get(),
      failed: () => writes.failed(),
      async close() {
        closed = true;
        reads.close();
        writes.close();
      },
    },
  };
}
