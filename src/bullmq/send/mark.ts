import type { Logger } from '../../index.js';
import { logRepeats } from '../log-repeats.js';
import type { Replication, ReplicaWait } from '../store/types.js';

/**
 * How a send's `in-flight` mark is confirmed on a replica before its POST (Redis with replicas):
 * one replica, within a second. A replica lagging longer than that holds the sends back, as
 * Redis's own `min-replicas-max-lag` would hold writes.
 */
export const MARK_WAIT: ReplicaWait = Object.freeze({ replicas: 1, timeout: 1_000 });

/** How long a send whose mark was not confirmed waits before its next start. */
export const UNCONFIRMED_RETRY_MS = 1_000;

/** How many more times an unconfirmed mark is asked about, outside the gate, before the send is given back. */
export const MARK_TRIES = 5;

/** What became of a mark: POST (`go`), not on the primary reached now (`missing`), or not on a replica yet. */
export type MarkAnswer = 'go' | 'missing' | 'unconfirmed';

/** Thrown inside the fleet gate when a mark was not confirmed: the send was not POSTed. */
export class MarkNotConfirmed extends Error {
  override readonly name = 'MarkNotConfirmed';
  constructor(readonly answer: Exclude<MarkAnswer, 'go'>) {
    super(`the in-flight mark is ${answer}`);
  }
}

/** How the processor confirms marks (none: every mark is safe, as in a processor's own tests). */
export interface MarkConfirmer {
  /** Asked once, inside the fleet gate, right after the mark was written. */
  confirm(id: string, startedAt: number): Promise<MarkAnswer>;
  /**
   * Asked again, outside the gate, up to `MARK_TRIES` times: true once the POST may go. A replica
   * that acknowledged late, or was promoted with the mark, lets the send go exactly once; a mark
   * given back instead would be found `in-flight` by a re-run, reconciled, and end `unknown`.
   */
  settle(id: string, startedAt: number): Promise<boolean>;
}

/**
 * Whether a send's `in-flight` mark (written with `startedAt`) will survive a failover, so that its
 * POST may start: confirmed on a replica, or nothing it could be rolled back to. A failure to ask
 * counts as "not yet": the send is never POSTed on a doubt.
 */
export function markConfirmer(replication: Replication, logger: Logger | undefined): MarkConfirmer {
  // A replica that lags holds back every send: said once per kind, with a count.
  const held = logRepeats(logger, "MessagingWorker: a send's in-flight mark was not confirmed on a replica; it waits");
  const confirm = async (id: string, startedAt: number): Promise<MarkAnswer> => {
    try {
      const answer = await replication.confirm(id, { phase: 'in-flight', startedAt }, MARK_WAIT);
      if (answer === 'confirmed' || answer === 'durable' || answer === 'no-replica') return 'go';
      held(
        answer === 'missing'
          ? 'the primary reached now does not hold the mark (a failover came between)'
          : `no replica acknowledged it within ${MARK_WAIT.timeout} ms`,
      );
      return answer;
    } catch (error) {
      held(String(error));
      return 'unconfirmed';
    }
  };
  return {
    confirm,
    async settle(id, startedAt) {
      for (let tries = 0; tries < MARK_TRIES; tries++) {
        const answer = await confirm(id, startedAt);
        if (answer !== 'unconfirmed') return answer === 'go';
      }
      return false;
    },
  };
}
