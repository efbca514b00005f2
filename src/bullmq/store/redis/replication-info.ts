import type { RedisClient } from 'bullmq';

/** What `INFO replication` of the primary says, as the failover defences use it. */
export interface ReplicationInfo {
  /** The primary's replication id: a new one after a failover (or a restart). */
  readonly replid: string;
  /** Where the primary's replication stream stands (bytes). */
  readonly offset: number;
  /** Replicas connected now (`connected_slaves`). */
  readonly replicas: number;
  /** The lowest offset an online replica acknowledged (-1 with none). */
  readonly ackedByAll: number;
}

/** ioredis's INFO, which takes a section. */
interface Sectioned {
  info(section: string): Promise<string>;
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
  const acked: number[] = [];
  for (const [key, value] of fields) {
    // slave0:ip=127.0.0.1,port=6380,state=online,offset=1234,lag=0
    if (!/^slave\d+$/.test(key) || !value.includes('state=online')) continue;
    const offset = /(?:^|,)offset=(\d+)/.exec(value)?.[1];
    if (offset !== undefined) acked.push(Number(offset));
  }
  return {
    replid: fields.get('master_replid') ?? '',
    offset: Number(fields.get('master_repl_offset') ?? 0),
    replicas: Number(fields.get('connected_slaves') ?? 0),
    ackedByAll: acked.length > 0 ? Math.min(...acked) : -1,
  };
}

/**
 * `INFO replication` of the primary `client` reaches, read at most about once a second, and again
 * at once after the connection was made again (a failover moves it to another primary).
 */
export function replicationReader(client: Promise<RedisClient>) {
  let last: { at: number; info: Promise<ReplicationInfo> } | undefined;
  client
    .then((redis) => (redis as unknown as NodeJS.EventEmitter).on('ready', () => (last = undefined)))
    .catch(() => undefined); // each read reports a failed connection
  // ioredis takes a section (BullMQ's client type declares none): only the lines needed here.
  const read = async () => replicationOf(parseInfo(await ((await client) as unknown as Sectioned).info('replication')));
  return {
    /** A reading at most `FRESH_MS` old (`fresh`: a new one). */
    info(fresh = false): Promise<ReplicationInfo> {
      if (fresh || !last || Date.now() - last.at >= FRESH_MS) {
        const info = read();
        last = { at: Date.now(), info };
        info.catch(() => {
          if (last?.info === info) last = undefined; // a failed read is not reused
        });
      }
      return last.info;
    },
  };
}

export type ReplicationReader = ReturnType<typeof replicationReader>;
