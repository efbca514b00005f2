/**
 * A failover that drops acknowledged sends, as issue 38 found it, for Sentinel and a Cluster alike:
 * a producer sends at a steady pace; its replica is stopped and its replication link killed, the
 * sends go on for 1.5 s (the primary now counts no replica), the primary is SIGKILLed, the replica
 * resumed and promoted. Every send the producer had acknowledged and the new primary lacks must be
 * reported to it: by a rejected call (`send`, `counts`) or by its `updates()` reader, with its id.
 */
import { DatastoreError, type MessagingQueue } from 'tenant-messaging/bullmq';
import { text, until } from '../fixture.js';

/** What one run saw. */
export interface CutRun {
  /** Sends the producer had acknowledged (resolved), and of them those after the link was cut. */
  readonly acknowledged: number;
  readonly afterCut: number;
  /** Acknowledged sends the new primary lacks, and of them those acknowledged after the cut. */
  readonly dropped: readonly string[];
  readonly droppedAfterCut: number;
  /** Dropped sends named to the producer (rejected calls, `updates()`), and those reported but not dropped. */
  readonly reported: number;
  readonly falselyReported: readonly string[];
  /** Dropped sends never named: lost in silence. */
  readonly silent: readonly string[];
  /** Calls that failed for want of a primary (not acknowledged, made again). */
  readonly failedCalls: number;
  /** Ms from the kill to the promotion. */
  readonly failoverMs: number;
}

/** What the run needs of the topology. */
export interface CutTopology {
  /** Stops the replica and kills its link; resolves with a function that resumes it. */
  cut(): Promise<() => void>;
  /** SIGKILLs the primary (`afterKill` once it is dead) and resolves once the replica is promoted (ms). */
  failover(afterKill: () => void): Promise<number>;
  /** Which of the jobs `ids` the new primary lacks, asked on it directly. */
  lacking(ids: readonly string[]): Promise<string[]>;
}

/** Pace of the sends, ms between two (a load shape, and the pause before a failed call is made again). */
const PACE_MS = 20;
/** Sends before the cut, from the first acknowledged: the producer reads its replica's acknowledgements about once a second. */
const WARM_MS = 1_500;
/** From the cut to the kill, as the issue had it: the sends acknowledged meanwhile are the ones at stake. */
const CUT_TO_KILL_MS = 1_500;

/** A phase that did not end within its bound. */
class StuckError extends Error {}

/**
 * `work`, or a failure naming `phase` once `ms` have passed: a hang detector, far past what the
 * phase takes (a run is about 9 s), so that a stuck run says where it stuck, not only that the
 * test timed out.
 */
async function phase<T>(name: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StuckError(`stuck ${ms} ms in: ${name}`)), ms);
  });
  try {
    return await Promise.race([work, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

export async function sendsAcrossCutFailover(queue: MessagingQueue, topology: CutTopology): Promise<CutRun> {
  const acknowledged: string[] = [];
  const reported = new Set<string>();
  const unexpected: unknown[] = [];
  // Calls that failed while no primary answered (a Cluster's redirections exhausted): not acknowledged.
  let failedCalls = 0;
  const hear = (error: unknown) => {
    if (error instanceof DatastoreError && error.reason === 'rolled-back') for (const id of error.ids) reported.add(id);
    else if (error instanceof DatastoreError) unexpected.push(error);
    else failedCalls++;
  };
  const pause = () => new Promise((resolve) => setTimeout(resolve, PACE_MS));
  // The producer's own reader, open before the first send: a rollback ends its iteration, naming the ids.
  const reader = new AbortController();
  const reading = (async () => {
    while (!reader.signal.aborted) {
      try {
        for await (const _ of queue.updates({ signal: reader.signal })) {
          // only its end is of interest
        }
      } catch (error) {
        hear(error);
        await pause();
      }
    }
  })();
  let stopped = false;
  const sending = (async () => {
    for (let n = 0; !stopped; n++) {
      const id = `c-${n}`;
      // A call that failed (a rollback reported to it, or no primary to answer) did nothing: made again.
      for (let tries = 0; tries < 100; tries++) {
        try {
          await queue.send({ ...text(n), content: `cut ${n}` }, { id });
          acknowledged.push(id);
          break;
        } catch (error) {
          hear(error);
          await pause();
        }
      }
      await pause();
    }
  })();
  await until(
    () => acknowledged.length > 0 || unexpected.length > 0,
    30_000,
    () => `a first send acknowledged (${failedCalls} calls failed)`,
  );
  // The time is the behaviour: long enough for the producer to read the replica's
  // acknowledgements at least once (it looks about once a second, a timer of its own that
  // nothing outside shows): it then knows the replica it must not forget.
  await new Promise((resolve) => setTimeout(resolve, WARM_MS));
  // Sends acknowledged from here on may have been written after the link died.
  const cutBefore = acknowledged.length;
  const resume = await phase('the replica stopped, its link cut', 10_000, topology.cut());
  // The time is the behaviour: sends go on this long with the link cut, as in the issue.
  await new Promise((resolve) => setTimeout(resolve, CUT_TO_KILL_MS));
  const failoverMs = await phase('the kill and the promotion', 20_000, topology.failover(resume));
  stopped = true;
  await phase('the send in flight at the promotion', 15_000, sending);
  const dropped = await phase('the new primary asked what it holds', 10_000, topology.lacking(acknowledged));
  // The watch looks about once a second: each call asks whether a rollback was found.
  await until(
    async () => {
      // A call that never settles is a failure of its own (below), not a failed call made again.
      await phase('queue.counts() after the failover', 10_000, queue.counts()).catch((error: unknown) =>
        error instanceof StuckError ? unexpected.push(error) : hear(error),
      );
      return dropped.every((id) => reported.has(id));
    },
    30_000,
    () => 'every dropped send reported',
  ).catch(() => undefined); // what stayed silent is counted, and the test fails on it
  reader.abort();
  await phase('the updates() reader ending on abort', 10_000, reading);
  if (unexpected.length > 0) {
    const what = unexpected.map((error) => (error instanceof Error ? error.message : String(error))).join('; ');
    throw new AggregateError(unexpected, `a call failed other than by a reported rollback, or stuck: ${what}`);
  }
  const afterCut = acknowledged.slice(cutBefore);
  return {
    acknowledged: acknowledged.length,
    afterCut: afterCut.length,
    dropped,
    droppedAfterCut: dropped.filter((id) => afterCut.includes(id)).length,
    reported: dropped.filter((id) => reported.has(id)).length,
    falselyReported: [...reported].filter((id) => !dropped.includes(id)),
    silent: dropped.filter((id) => !reported.has(id)),
    failedCalls,
    failoverMs,
  };
}

/** One line of figures for the run: for the message of an assertion that fails. */
export function describeRun(label: string, run: CutRun): string {
  return `${label}: acknowledged ${run.acknowledged} (${run.afterCut} after the link was cut), dropped ${run.dropped.length} (${run.droppedAfterCut} acknowledged after the cut), reported ${run.reported}, silent ${run.silent.length}${run.silent.length > 0 ? ` (${run.silent.join(',')})` : ''}, falsely reported ${run.falselyReported.length}; ${run.failedCalls} calls failed during the failover; promoted ${run.failoverMs} ms after the kill`;
}
