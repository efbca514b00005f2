import type { DelayedError as DelayedErrorType } from 'bullmq';
import type { MessageLog, RateLimitError } from '../../index.js';
import type { Unpublished } from '../store/update-log.js';
import type { UpdateError } from '../types.js';
import type { SendJobData, SendJobResult } from './job-data.js';
import { pauseOf } from './pause.js';
import type { ProcessDeps, SendJob } from './process-deps.js';
import { next, type SendEvent } from './states.js';

/**
 * This worker no longer holds the job's lock (it expired while the job waited, at the fleet gate or
 * on a stalled datastore): the job may be another worker's now. Nothing more is written, nothing
 * is sent; BullMQ's own writes for the job are refused for the same lock.
 */
export class LockLost extends Error {
  override readonly name = 'LockLost';
  constructor(readonly id: string) {
    super(
      `job ${id}: this worker's lock on it expired (the datastore answered too late for lockDuration), so another worker may hold it now; this worker wrote nothing more (had its POST already been made, the worker holding the job reconciles it, never sends it blindly)`,
    );
  }
}

/** How a step writes its job (only by the state table) and how it ends its start. */
export interface JobControl {
  /**
   * The one way a job's data is written: the phase moves by the table (states.ts) on `event`, with
   * `patch` applied and the `drop`ped fields removed, in one write, awaited before the step it announces.
   */
  move(
    job: SendJob,
    event: SendEvent,
    patch?: Partial<SendJobData>,
    drop?: readonly (keyof SendJobData)[],
  ): Promise<SendJobData>;
  /**
   * Proves this worker still holds the job's lock, rewriting its data as it is under the lock (a
   * POST that goes after a wait outside the mark's write: a mark confirmed late). Throws `LockLost`.
   */
  stillHeld(job: SendJob): Promise<void>;
  /** Publishes an update for `updates()` readers. */
  announce(update: Unpublished): Promise<void>;
  /**
   * A 429: the whole queue waits out Retry-After, capped (pause.ts); BullMQ puts the job back, not
   * counted as a failure. With `job` (a send that was refused), a `rate-limited` update says until when.
   */
  pauseQueue(error: RateLimitError, job?: SendJob): Promise<never>;
  /** `failed` or `unknown`: terminal, published, kept in BullMQ's failed set, never retried. */
  end(job: SendJob, event: SendEvent, error: UpdateError, log?: MessageLog): Promise<never>;
  isLastAttempt(job: SendJob): boolean;
  /**
   * Back to the FRONT of the queue (BullMQ's moveToWait pushes where the next start takes from):
   * the job's next request is made in a later start, admitted by the fleet gate. The front,
   * because a reconcile walk whose pages waited behind the whole queue would be pushed further
   * back by the sends stored meanwhile, and would report late.
   */
  again(job: SendJob, token: string | undefined): Promise<never>;
  /** Back to the datastore for `ms`. */
  delay(job: SendJob, token: string | undefined, ms: number): Promise<never>;
  /** The service has the send (accepted, or found by the walk): recorded, announced `sent`, then tracked. */
  accepted(job: SendJob, token: string | undefined, event: SendEvent, log: MessageLog): Promise<SendJobResult>;
  /** Delivery tracking begins (a poll after `track.interval`), or the job ends `sent` when none is asked. */
  startTracking(job: SendJob, token: string | undefined, logId: number): Promise<SendJobResult>;
}

/** The job control of one processor, over its dependencies. */
export function jobControl(deps: ProcessDeps): JobControl {
  const { bull, queue, updates } = deps;

  const move = async (
    job: SendJob,
    event: SendEvent,
    patch: Partial<SendJobData> = {},
    drop: readonly (keyof SendJobData)[] = [],
  ): Promise<SendJobData> => {
    const data: SendJobData = { ...job.data, ...patch, phase: next(job.data.phase, event) };
    for (const key of drop) delete data[key];
    await write(job, data);
    return data;
  };
  // Under the job's lock when the worker gave one: a worker overtaken while it waited stops here.
  const write = async (job: SendJob, data: SendJobData): Promise<void> => {
    if (deps.owned && job.token !== undefined) {
      const written = await deps.owned.write(String(job.id), job.token, data);
      if (written !== 'written') throw new LockLost(String(job.id));
      job.data = data;
    } else {
      await job.updateData(data);
    }
  };
  // Without a lock to check (a processor's own tests) there is nothing to prove, and nothing is written.
  const stillHeld = async (job: SendJob) => {
    if (deps.owned && job.token !== undefined) await write(job, job.data);
  };
  const announce = (update: Unpublished) => updates.publish(update);

  const pauseQueue = async (error: RateLimitError, job?: SendJob): Promise<never> => {
    const pause = pauseOf(error.retryAfter);
    await queue.rateLimit(pause.ms);
    const asked = error.retryAfter === undefined ? 'no Retry-After' : `Retry-After ${error.retryAfter} ms`;
    const message = pause.capped
      ? `The service answered 429 with ${asked}; the queue pauses ${pause.ms} ms, the cap, then asks again.`
      : `The service answered 429 with ${asked}; the queue pauses ${pause.ms} ms.`;
    if (pause.capped) deps.logger?.warn('MessagingWorker: a 429 asked for a pause beyond the cap', { message });
    if (job) {
      const until = new Date(Date.now() + pause.ms).toISOString();
      await announce({
        id: String(job.id),
        status: 'rate-limited',
        until,
        error: { name: error.name, message, status: 429 },
      });
    }
    throw bull.Worker.RateLimitError();
  };

  const end = async (job: SendJob, event: SendEvent, error: UpdateError, log?: MessageLog): Promise<never> => {
    const data = await move(job, event, { error });
    const status = data.phase as 'failed' | 'unknown';
    if (status === 'unknown') deps.logger?.warn('queued send ended unknown', { id: job.id, error: error.message });
    await announce({ id: String(job.id), status, error, ...(log ? { log } : {}) });
    throw new bull.UnrecoverableError(`${status}: ${error.message}`);
  };

  const isLastAttempt = (job: SendJob) => job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

  const again = async (job: SendJob, token: string | undefined): Promise<never> => {
    await job.moveToWait(token);
    throw new bull.WaitingError();
  };

  const delay = async (job: SendJob, token: string | undefined, ms: number): Promise<never> => {
    await job.moveToDelayed(Date.now() + ms, token);
    throw new bull.DelayedError() as DelayedErrorType;
  };

  const accepted = async (job: SendJob, token: string | undefined, event: SendEvent, log: MessageLog) => {
    // The walk's progress (it holds the matched log) is not kept once it has ended.
    await move(job, event, { logId: log.id }, ['reconcile']);
    await announce({ id: String(job.id), status: 'sent', log });
    return startTracking(job, token, log.id);
  };

  const startTracking = async (job: SendJob, token: string | undefined, logId: number): Promise<SendJobResult> => {
    const { track } = deps;
    if (!track) return { status: 'sent', logId };
    await move(job, 'track', { track: { deadline: Date.now() + track.timeout, unchanged: 0, polls: 0 } });
    return delay(job, token, track.interval);
  };

  return { move, stillHeld, announce, pauseQueue, end, isLastAttempt, again, delay, accepted, startTracking };
}
