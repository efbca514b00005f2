import { randomUUID } from 'node:crypto';
import type { RedisClient } from 'bullmq';
import type { Logger } from '../../../index.js';
import { DatastoreError } from '../../errors.js';
import { CHECK_MS, type DatastoreGuard } from '../guard.js';
import MARK from './mark.lua';
import { parseInfo } from './replication-info.js';
import type { RollbackWatch } from './rollback-watch.js';

export interface GuardSettings {
  /** The queue, as messages name it. */
  readonly queue: string;
  /** The marker's key, in the queue's key space. */
  readonly key: string;
  /** Use a Redis that can lose sends anyway, with a warning: for development. */
  readonly allowUnsafe: boolean;
  readonly logger: Logger | undefined;
}

const MARK_COMMAND = 'tenantMessagingMark';

/** `watch`: the store's finder of rolled-back enqueues, whose reports this guard's `check` throws. */
export function redisGuard(
  client: Promise<RedisClient>,
  settings: GuardSettings,
  watch: RollbackWatch | undefined,
): DatastoreGuard {
  let ready: Promise<void> | undefined;
  const heard: DatastoreError[] = [];
  let stopListening: (() => void) | undefined;
  let epoch: string | undefined;
  let since = new Date();
  let checked = 0;

  const defined = client.then((redis) => {
    redis.defineCommand(MARK_COMMAND, { numberOfKeys: 1, lua: MARK });
    return redis;
  });
  defined.catch(() => undefined); // each use reports a failed connection; one never used must not leave it unhandled
  /** Writes the marker if there is none, and reads the one that is there, in one step. */
  const mark = async (redis: RedisClient): Promise<string> =>
    String(await redis.runCommand(MARK_COMMAND, [settings.key, `${randomUUID()} ${new Date().toISOString()}`]));

  const start = async () => {
    const redis = await defined;
    const infos = (await infoOfEveryMaster(redis)).map(parseInfo);
    for (const info of infos) refuseUnsafe(info, settings);
    // Read before this process enqueues anything: a failover from here on changes it.
    const replid = infos.length === 1 ? infos[0]?.get('master_replid') : undefined;
    if (watch && replid) watch.baseline(replid);
    stopListening ??= watch?.listen((error) => heard.push(error));
    epoch = await mark(redis);
    since = new Date();
    checked = Date.now();
  };

  const guard: DatastoreGuard = {
    ready: () => {
      ready ??= start().catch((error: unknown) => {
        ready = undefined; // a datastore that was down is asked again by the next call
        throw error;
      });
      return ready;
    },
    check: async () => {
      await guard.ready();
      if (heard.length === 0 && Date.now() - checked < CHECK_MS) return;
      checked = Date.now();
      const redis = await defined;
      const seen = await redis.get(settings.key);
      if (seen === epoch) {
        const rolledBack = heard.shift();
        if (rolledBack) throw rolledBack;
        return;
      }
      // Everything was forgotten (a restart without persistence): that report says more than a
      // rollback's, and the watch is told so, lest it report the same loss as a failover later.
      heard.length = 0;
      watch?.forgot();
      const lostSince = since;
      epoch = await mark(redis);
      since = new Date();
      throw new DatastoreError(
        'forgot',
        `The datastore no longer holds queue '${settings.queue}' as this process left it: its marker, written when this process first used the queue (${lostSince.toISOString()}), is ${seen === null ? 'gone' : 'replaced'}. Redis restarted without persistence, was flushed, or evicted keys, so sends enqueued since then may be lost: enqueue them again with the same ids (one still stored is not stored twice). This call did nothing; the queue carries on with a new marker.`,
        { since: lostSince },
      );
    },
    close: () => {
      stopListening?.();
      stopListening = undefined;
    },
  };
  return guard;
}

/**
 * INFO of every node that holds the queue's data: the one server, or each master of a Cluster
 * (INFO goes to one node there, and each master keeps its own settings).
 */
async function infoOfEveryMaster(redis: RedisClient): Promise<string[]> {
  const cluster = redis as unknown as {
    isCluster?: boolean;
    nodes?: (role: 'master') => { info(): Promise<string> }[];
  };
  const masters = cluster.isCluster === true && typeof cluster.nodes === 'function' ? cluster.nodes('master') : [];
  if (masters.length > 0) return Promise.all(masters.map((node) => node.info()));
  return [await redis.info()];
}

/** Refuses (or, opted in, warns about) a Redis that can lose what it acknowledged. */
function refuseUnsafe(info: Map<string, string>, settings: GuardSettings): void {
  const faults: DatastoreError[] = [];
  if (info.get('aof_enabled') === '0') {
    faults.push(
      new DatastoreError(
        'not-durable',
        `Redis keeps queue '${settings.queue}' without an append-only file (appendonly no): a restart loses every send it acknowledged since its last snapshot, in silence. Turn it on: \`redis-server --appendonly yes\`, or \`CONFIG SET appendonly yes\` then \`CONFIG REWRITE\` (a managed Redis: its persistence or AOF setting). For development only, pass allowUnsafeDatastore: true.`,
      ),
    );
  }
  const policy = info.get('maxmemory_policy');
  if (policy !== undefined && policy !== 'noeviction') {
    faults.push(
      new DatastoreError(
        'evicts',
        `Redis's maxmemory-policy is '${policy}': when it is full it deletes keys, sends among them, in silence. Set it to noeviction (\`CONFIG SET maxmemory-policy noeviction\`, or maxmemory-policy in redis.conf or your provider's parameter group): a full Redis then refuses new sends with an error instead. For development only, pass allowUnsafeDatastore: true.`,
      ),
    );
  }
  const [first] = faults;
  if (!first) return;
  if (!settings.allowUnsafe) throw first;
  for (const fault of faults) settings.logger?.warn(`allowUnsafeDatastore: ${fault.message}`);
}
