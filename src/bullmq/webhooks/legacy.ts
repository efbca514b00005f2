import type { Queue } from 'bullmq';
import type { Logger } from '../../index.js';
import { sleep } from '../../seam/timing.js';
import type { BullMQModule } from '../load.js';
import { type Backend, makeQueue } from '../store/backend.js';
import { poolOf } from '../store/postgres/schema.js';
import { closeWithin } from './close.js';
import type { Deliveries, NewDelivery } from './deliveries.js';

/**
 * Deliveries queued by a relay of 0.x, which kept a BullMQ queue per endpoint
 * (`<name>.webhooks.<key>`, `{ v: 1, webhookId, body }`), are moved into the one queue of
 * deliveries: at start, then every minute (relays of 0.x still running during a rolling upgrade
 * keep queueing there). Each keeps its webhook-id, its body and its first queueing time (where
 * `retryFor` counts from). Added before it is removed, so a relay killed in between makes it twice
 * at most, never drops it; a delivery an 0.x relay is making at that moment may be made twice too.
 * Only the queues of this relay's endpoints are looked at (nothing else has their secrets).
 */

/** How often the queues of 0.x are looked at again. */
const SWEEP_MS = 60_000;
/** Jobs read at once from a queue of 0.x. */
const BATCH = 200;
/** What a queue of 0.x holds that is still to be made (its completed and failed jobs stay). */
const PENDING = ['wait', 'prioritized', 'delayed', 'active'] as const;

export interface LegacySettings {
  readonly bull: BullMQModule;
  readonly backend: Backend;
  /** The relayed queue: its connection looks for the queues of 0.x that hold anything. */
  readonly source: Queue;
  /** The name of every endpoint's queue of 0.x, by the endpoint's key. */
  readonly queues: ReadonlyMap<string, string>;
  readonly deliveries: Deliveries;
  readonly logger: Logger | undefined;
  readonly scrub: (text: string) => string;
}

/** Moves what the queues of 0.x hold, now and then every minute, until `signal` aborts. */
export async function drainLegacyQueues(settings: LegacySettings, signal: AbortSignal): Promise<void> {
  const { logger, scrub } = settings;
  while (!signal.aborted) {
    try {
      for (const [key, name] of await withWork(settings)) {
        if (signal.aborted) return;
        const moved = await moveAll(settings, key, name, signal);
        if (moved > 0) {
          logger?.info('webhook relay: moved deliveries queued by a previous version (a queue per endpoint)', {
            queue: name,
            moved,
          });
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      logger?.error('webhook relay: moving deliveries of a previous version failed; trying again in a minute', {
        error: scrub(error instanceof Error ? error.message : String(error)),
      });
    }
    await sleep(SWEEP_MS, signal).catch(() => undefined);
  }
}

/**
 * The queues of 0.x that hold a delivery to make, found with one round trip on the relayed queue's
 * connection however many endpoints there are: no queue is opened for those that hold nothing.
 */
async function withWork({ bull, backend, source, queues }: LegacySettings): Promise<[string, string][]> {
  const entries = [...queues];
  if (backend.kind === 'postgres') {
    // BullMQ's own table of jobs (its schema is the pool's search_path): one query for every queue.
    const { rows } = await poolOf(source).query(
      `SELECT DISTINCT queue FROM job WHERE queue = ANY($1::text[]) AND state IN ('waiting', 'delayed', 'active')`,
      [entries.map(([, name]) => name)],
    );
    const busy = new Set(rows.map((row) => String(row['queue'])));
    return entries.filter(([, name]) => busy.has(name));
  }
  const names = new bull.QueueKeys(source.opts.prefix);
  const pipeline = (await source.getBackend().client).pipeline();
  for (const [, name] of entries) {
    const keys = names.getKeys(name);
    for (const list of ['wait', 'active']) pipeline.llen(keys[list] as string);
    for (const set of ['delayed', 'prioritized']) pipeline.zrange(keys[set] as string, 0, 0);
  }
  const replies = (await pipeline.exec()) ?? [];
  const found = (i: number) =>
    replies.slice(i * 4, i * 4 + 4).some(([error, value]) => {
      if (error) throw error;
      return Array.isArray(value) ? value.length > 0 : Number(value) > 0;
    });
  return entries.filter((_, i) => found(i));
}

/** Moves every pending delivery of one queue of 0.x; resolves with how many were moved. */
async function moveAll(settings: LegacySettings, key: string, name: string, signal: AbortSignal): Promise<number> {
  const old = makeQueue<unknown, unknown>(settings.bull, name, settings.backend);
  const seen = new Set<string>();
  let moved = 0;
  try {
    while (!signal.aborted) {
      const jobs = (await old.getJobs([...PENDING], 0, BATCH - 1, true)).filter(
        (job) => job?.id !== undefined && !seen.has(job.id),
      );
      if (jobs.length === 0) return moved;
      const movable: { id: string; delivery: NewDelivery }[] = [];
      for (const job of jobs) {
        const id = job.id as string;
        seen.add(id);
        const data = legacyData(job.data);
        // Anything else was not queued by the relay: it stays where it is.
        if (data) movable.push({ id, delivery: { data: { v: 2, endpoint: key, ...data }, queuedAt: job.timestamp } });
      }
      await settings.deliveries.add(movable.map((m) => m.delivery));
      // 0 when the job is locked: a relay of 0.x is making it now (it may then be made twice).
      for (const { id } of movable) moved += await old.remove(id);
    }
    return moved;
  } finally {
    await closeWithin(old);
  }
}

/** The data of a delivery of 0.x, or undefined for anything else. */
function legacyData(data: unknown): { webhookId: string; body: string } | undefined {
  const { v, webhookId, body } = (data ?? {}) as { v?: unknown; webhookId?: unknown; body?: unknown };
  return v === 1 && typeof webhookId === 'string' && typeof body === 'string' ? { webhookId, body } : undefined;
}
