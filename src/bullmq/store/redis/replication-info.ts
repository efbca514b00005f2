import type { RedisClient } from 'bullmq';
import { type ReplicaReading, replicaMemory } from './replica-memory.js';

/** What `INFO replication` of the primary says, as the failover defences use it. */
export interface ReplicationInfo extends ReplicaReading {
  /** Where the primary's replication stream stands (bytes). */
  readonly offset: number;
  /**
   * On a promoted replica, its former primary's replication id (`master_replid2`) and the offset
   * from which its own stream took over (`second_repl_offset`): it held that primary's stream
   * before that offset. `''` and -1 otherwise.
   */
  readonly replid2: string;
  readonly secondOffset: number;
}

/** ioredis's INFO, which takes a section. */
interface Sectioned {
  info(section: string): Promise<string>;
}

/** Where `INFO replication` is read: the primary in charge of the queue's data now. */
export interface InfoSource {
  read(): Promise<string>;
  /** Hears of a new connection or a new primary: a reading made before it is stale. */
  onChange(listener: () => void): void;
}

/** A single Redis, or one behind Sentinel: ioredis follows the primary, and says `ready` on each new connection. */
export function clientInfo(client: Promise<RedisClient>): InfoSource {
  return {
    // ioredis takes a section (BullMQ's client type declares none): only the lines needed here.
    read: async () => ((await client) as unknown as Sectioned).info('replication'),
    onChange: (listener) =>
      void client
        .then((redis) => (redis as unknown as NodeJS.EventEmitter).on('ready', listener))
        .catch(() => undefined), // each read reports a failed connection
  };
}

/** How long a read of `INFO replication` is reused: about once a second, as the guard looks. */
const FRESH_MS = 1_000;

/** The `key:value` lines of Redis's INFO. */
export function parseInfo(info: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

/** `INFO replication` (or a whole INFO) as `ReplicationInfo`. */
export function replicationOf(fields: Map<string, string>): ReplicationInfo {
  const listed = new Map<string, number>();
  for (const [key, value] of fields) {
    // slave0:ip=127.0.0.1,port=6380,state=online,offset=1234,lag=0
    if (!/^slave\d+$/.test(key)) continue;
    const field = (name: string) => new RegExp(`(?:^|,)${name}=([^,]*)`).exec(value)?.[1];
    const offset = field('state') === 'online' ? Number(field('offset') ?? -1) : -1;
    listed.set(`${field('ip')}:${field('port')}`, Number.isFinite(offset) ? offset : -1);
  }
  return {
    replid: fields.get('master_replid') ?? '',
    offset: Number(fields.get('master_repl_offset') ?? 0),
    replid2: fields.get('master_replid2') ?? '',
    secondOffset: Number(fields.get('second_repl_offset') ?? -1),
    replicas: Number(fields.get('connected_slaves') ?? 0),
    listed,
    backlog: fields.get('repl_backlog_active') === '1',
  };
}

/**
 * `INFO replication` of the primary `source` reaches, read at most about once a second, and again
 * at once after the connection was made again (a failover moves it to another primary).
 */
export function replicationReader(source: InfoSource, now: () => number = Date.now) {
  let last: { at: number; info: Promise<ReplicationInfo> } | undefined;
  // Whether this process ever saw a replica or a failover (a new replication id).
  let replid: string | undefined;
  let replicated = false;
  const memory = replicaMemory(now);
  source.onChange(() => (last = undefined));
  const read = async () => {
    const info = replicationOf(parseInfo(await source.read()));
    memory.note(info);
    if (info.replicas > 0 || (replid !== undefined && replid !== info.replid)) replicated = true;
    replid = info.replid;
    return info;
  };
  return {
    /**
     * Whether this process ever saw the datastore replicated: a replica, or a failover. Until then
     * it is one Redis without replicas, and a write there is never rolled back to another server.
     */
    replicated: () => replicated,
    /**
     * Whether a write on this primary may still be rolled back by a replica's promotion: it has a
     * replica now, or had one (seen by this process under the same replication id) that dropped
     * out less than `REPLICA_GONE_MS` ago. A primary promoted by a failover has a new id: until a
     * replica joins it, nothing can be promoted in its place with less than it holds.
     */
    mayHaveReplica: (info: ReplicationInfo): boolean => memory.seen(info),
    /**
     * The replication offset below which a write on the primary of `info` survives any failover:
     * what every replica that may be promoted acknowledged (replica-memory.ts). +Infinity with none.
     */
    safeOffset: (info: ReplicationInfo): number => memory.safeOffset(info),
    /** A reading at most `FRESH_MS` old (`fresh`: a new one). */
    info(fresh = false): Promise<ReplicationInfo> {
      if (fresh || !last || now() - last.at >= FRESH_MS) {
        const info = read();
        last = { at: now(), info };
        info.catch(() => {
          if (last?.info === info) last = undefined; // a failed read is not reused
        });
      }
      return last.info;
    },
  };
}

export type ReplicationReader = ReturnType<typeof replicationReader>;
