import type { RedisClient } from 'bullmq';
import type { Confirmation, ReplicaWait } from '../types.js';
import CONFIRM from './confirm.lua';

const CONFIRM_COMMAND = 'tenantMessagingConfirm';

/** How long the barrier key lives: long enough for any WAIT, then gone. */
const BARRIER_MS = 60_000;

interface Request {
  readonly key: string;
  /** The job's marks, one per line ('' for its existence alone). */
  readonly marks: string;
  readonly wait: ReplicaWait;
  readonly done: (answer: Confirmation | Error) => void;
}

/** ioredis's generic command, which BullMQ's client type does not declare. */
interface Raw {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** A connection of our own to the primary, where the script and its WAIT go. */
export interface Link {
  /** The connection (the same one until it fails, or the primary in charge changes). */
  get(): Promise<RedisClient>;
  /** A call on it failed: the next `get` may reach another primary. */
  failed(): void;
  close(): Promise<void>;
}

/** A single Redis, or one behind Sentinel: a duplicate of BullMQ's client, which ioredis moves to a new primary. */
export function ownLink(client: Promise<RedisClient>): Link {
  let connection: Promise<RedisClient> | undefined;
  return {
    get() {
      connection ??= client.then((redis) => {
        const own = redis.duplicate();
        // Its errors reach the confirmation that fails; unheard, ioredis would print them.
        own.on('error', () => undefined);
        return own;
      });
      return connection;
    },
    failed: () => undefined, // ioredis reconnects it
    async close() {
      const made = connection;
      connection = undefined;
      if (made) (await made.catch(() => undefined))?.disconnect();
    },
  };
}

/**
 * Confirms writes on replicas with Redis's WAIT, which waits only for the writes of the connection
 * that calls it. BullMQ wrote the job on a connection of its own, so WAIT there could not be
 * relied on (and would stall every other job on it); instead, on a connection of its own (`link`),
 * a script checks that the job is on the primary this connection reaches and writes a barrier key:
 * replication is one ordered stream, so a replica that acknowledged the barrier holds every write
 * the primary applied before it, the job's included. The check also refuses a connection that
 * moved to another primary in between (a new connection's WAIT has nothing to wait for).
 *
 * Confirmations asked while one is under way share the next round (one script, one WAIT): a
 * lagging replica then costs every waiting job one timeout, not one each in turn.
 */
export function redisConfirmer(link: Link, barrierKey: string) {
  let queued: Request[] = [];
  let running = false;
  // A Cluster's link makes a new connection per master: the script is defined on each.
  const defined = new WeakSet<RedisClient>();

  const dedicated = async () => {
    const redis = await link.get();
    if (!defined.has(redis)) {
      redis.defineCommand(CONFIRM_COMMAND, { numberOfKeys: 1, lua: CONFIRM });
      defined.add(redis);
    }
    return redis;
  };

  const round = async (batch: readonly Request[]) => {
    try {
      const redis = await dedicated();
      const args = [String(BARRIER_MS), ...batch.flatMap((request) => [request.key, request.marks])];
      const found = (await redis.runCommand(CONFIRM_COMMAND, [barrierKey, ...args])) as number[];
      const replicas = Math.max(...batch.map((request) => request.wait.replicas));
      const timeout = Math.max(...batch.map((request) => request.wait.timeout));
      const acked = Number(await (redis as unknown as Raw).call('WAIT', replicas, timeout));
      batch.forEach((request, i) => {
        if (found[i] !== 1) request.done('missing');
        else request.done(acked >= request.wait.replicas ? 'confirmed' : 'unconfirmed');
      });
    } catch (error) {
      link.failed();
      for (const request of batch) request.done(error instanceof Error ? error : new Error(String(error)));
    }
  };

  const pump = async () => {
    if (running) return;
    running = true;
    try {
      while (queued.length > 0) {
        const batch = queued;
        queued = [];
        await round(batch);
      }
    } finally {
      running = false;
    }
  };

  return {
    /** Whether the job under `key` (holding every line of `marks`) reached `wait.replicas` replicas. */
    confirm(key: string, marks: string, wait: ReplicaWait): Promise<Confirmation> {
      return new Promise((resolve, reject) => {
        queued.push({
          key,
          marks,
          wait,
          done: (answer) => (answer instanceof Error ? reject(answer) : resolve(answer)),
        });
        void pump();
      });
    },
    close: (): Promise<void> => link.close(),
  };
}
