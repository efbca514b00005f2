import type { DelayedError as DelayedErrorType, Job, Queue } from 'bullmq';
import { APIError, NotFoundError, RateLimitError } from '../../api-error.js';
import type { MessagingClient } from '../../client.js';
import { nextPollDelay } from '../../core/polling/poll.js';
import { APIConnectionError, SendOutcomeUnknownError, ValidationError } from '../../errors.js';
import type { Logger } from '../../types/logger.js';
import type { MessageLog } from '../../types/message-log.js';
import type { FleetGate } from '../fleet/gate.js';
import type { FleetLanes } from '../fleet/lanes.js';
import type { BullMQModule } from '../load.js';
import { quietUntil } from '../schedule/quiet-hours.js';
import type { Unpublished, UpdateLog } from '../store/update-log.js';
import type { UpdateError } from '../types.js';
import { errorFields, transient } from './error-fields.js';
import type { SendJobData, SendJobResult } from './job-data.js';
import { type MarkConfirmer, MarkNotConfirmed, UNCONFIRMED_RETRY_MS } from './mark.js';
import { reconcileParamsOf, sendParamsOf } from './params.js';
import { next, type SendEvent, stepOf } from './states.js';
import { startWalk, type WalkProgress, type WalkResult } from './walk.js';
import { walkStep } from './walk-step.js';

/** Tracking settings with their defaults applied. */
export interface TrackSettings {
  readonly until: 'delivered' | 'read';
  readonly timeout: number;
  readonly interval: number;
}

/** What the processor needs: all of it shared by the worker's jobs. */
export interface ProcessDeps {
  readonly bull: BullMQModule;
  /** The worker's client, with `maxRetries: 0`. */
  readonly client: MessagingClient;
  /** For `queue.rateLimit(ms)`: pauses every worker of the queue. */
  readonly queue: Queue;
  /** Where updates are published: the queue's datastore. */
  readonly updates: UpdateLog;
  readonly track: TrackSettings | undefined;
  readonly logger: Logger | undefined;
  /** Admits every request within the fleet's limit (fleet/gate.ts). */
  readonly gate: FleetGate;
  /** Per-sender and per-recipient lanes for the sends (fleet/lanes.ts), when configured. */
  readonly lanes?: FleetLanes | undefined;
  /** The fleet's limit: the reconcile walk's page cap derives from it (walk.ts). */
  readonly requestsPerSecond: number | undefined;
  /** How far the service's clock may be behind the workers' (the reconcile window's margin). */
  readonly clockSkewMs: number;
  /** Whether a mark survives a failover (mark.ts); none: every mark does (a test's processor). */
  readonly marks?: MarkConfirmer | undefined;
  readonly random?: () => number;
}

type SendJob = Job<SendJobData, SendJobResult>;

/** A lane place that ended while its send waited at the fleet gate: the send was not made. */
class LaneLost extends Error {
  override readonly name = 'LaneLost';
}

/** BullMQ's processor for send jobs: one step of the state table per run (see states.ts). */
export function createProcessor(deps: ProcessDeps) {
  const { bull, client, queue, updates, gate } = deps;
  const random = deps.random ?? Math.random;

  /**
   * The one way a job's data is written: the phase moves by the table (states.ts) on `event`, with
   * `patch` applied and the `drop`ped fields removed, in one write, awaited before the step it announces.
   */
  const move = async (
    job: SendJob,
    event: SendEvent,
    patch: Partial<SendJobData> = {},
    drop: readonly (keyof SendJobData)[] = [],
  ): Promise<SendJobData> => {
    const data: SendJobData = { ...job.data, ...patch, phase: next(job.data.phase, event) };
    for (const key of drop) delete data[key];
    await job.updateData(data);
    return data;
  };
  const announce = (update: Unpublished) => updates.publish(update);

  /** A 429: the whole queue waits out Retry-After; BullMQ puts the job back, not counted as a failure. */
  const pauseQueue = async (error: RateLimitError): Promise<never> => {
    await queue.rateLimit(Math.max(1, error.retryAfter ?? 1000));
    throw bull.Worker.RateLimitError();
  };

  /** `failed` or `unknown`: terminal, published, kept in BullMQ's failed set, never retried. */
  const end = async (job: SendJob, event: SendEvent, error: UpdateError, log?: MessageLog): Promise<never> => {
    const data = await move(job, event, { error });
    const status = data.phase as 'failed' | 'unknown';
    if (status === 'unknown') deps.logger?.warn('queued send ended unknown', { id: job.id, error: error.message });
    await announce({ id: String(job.id), status, error, ...(log ? { log } : {}) });
    throw new bull.UnrecoverableError(`${status}: ${error.message}`);
  };

  const isLastAttempt = (job: SendJob) => job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

  /**
   * Back to the FRONT of the queue (BullMQ's moveToWait pushes where the next start takes from):
   * the job's next request is made in a later start, which the fleet's limiter counts. The front,
   * because a reconcile walk whose pages waited behind the whole queue would be pushed further
   * back by the sends stored meanwhile, and would report late.
   */
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

  /**
   * A send its lanes hold back, certainly not sent: back to the datastore for `ms` (jittered, so
   * that waiting workers do not ask in the same instant). A POST made again after its mark was
   * given back (mark.ts) finds the job `in-flight`: it waits `queued`, or its next start would
   * reconcile, not send.
   */
  const waitForLane = async (job: SendJob, token: string | undefined, ms: number): Promise<never> => {
    if (job.data.phase === 'in-flight') await move(job, 'never-sent');
    return delay(job, token, ms + Math.floor(random() * 10));
  };

  /**
   * The POST, admitted by its lanes and then the gate; `mark` runs first, inside the gate
   * (admitted before the mark). A send whose lane is full goes back to the datastore until a
   * place ends: it holds no worker slot meanwhile, and uses no attempt.
   */
  const post = async (job: SendJob, token: string | undefined, mark?: () => Promise<void>) => {
    const lanes = deps.lanes && (await deps.lanes.admit(job.data.params));
    if (lanes && 'waitMs' in lanes) return waitForLane(job, token, lanes.waitMs);
    let log: MessageLog;
    try {
      log = await gate.run(async () => {
        // A wait at the gate may outlast a lane place's lease: renewed, or the send waits again.
        if (lanes && !(await deps.lanes?.renew(lanes.held))) throw new LaneLost();
        await mark?.();
        return client.messages.send(sendParamsOf(job.data.params));
      });
    } catch (error) {
      const notSent = error instanceof MarkNotConfirmed || error instanceof LaneLost;
      if (lanes) await (notSent ? deps.lanes?.release(lanes.held) : deps.lanes?.settle(lanes.held));
      if (error instanceof LaneLost) return waitForLane(job, token, 1);
      return sendFailed(job, token, error);
    }
    if (lanes) await deps.lanes?.settle(lanes.held);
    return accepted(job, token, 'accepted', log);
  };

  /** A send due inside its quiet hours waits in the datastore until they end, and says so. */
  const quiet = async (job: SendJob, token: string | undefined): Promise<void> => {
    const { quiet: hours } = job.data;
    if (hours === undefined) return;
    const now = Date.now();
    const until = quietUntil(now, hours, hours.zones);
    if (until === undefined || until <= now) return;
    await announce({ id: String(job.id), status: 'quiet-hours', until: new Date(until).toISOString() });
    return delay(job, token, until - now);
  };

  const send = async (job: SendJob, token: string | undefined): Promise<SendJobResult> => {
    await quiet(job, token);
    const startedAt = Date.now();
    // The mark is in the datastore before the POST starts: a crash from here on leaves `in-flight`.
    // A walk left from before a `queue.resend(id)` belongs to the previous POST: not this one's.
    // A mark a failover could roll back would let a re-run POST blindly: confirmed first (mark.ts).
    return post(job, token, async () => {
      await move(job, 'start', { startedAt }, ['reconcile']);
      const answer = (await deps.marks?.confirm(String(job.id), startedAt)) ?? 'go';
      if (answer !== 'go') throw new MarkNotConfirmed(answer);
    });
  };

  const sendFailed = async (job: SendJob, token: string | undefined, error: unknown): Promise<SendJobResult> => {
    if (error instanceof MarkNotConfirmed) {
      // Not POSTed. Asked again outside the gate; a mark still unconfirmed is given back (certainly
      // not sent), delayed, without using an attempt.
      const { startedAt } = job.data;
      if (error.answer === 'unconfirmed' && startedAt && (await deps.marks?.settle(String(job.id), startedAt)))
        return post(job, token);
      await move(job, 'never-sent');
      return delay(job, token, UNCONFIRMED_RETRY_MS);
    }
    if (error instanceof RateLimitError) {
      await move(job, 'rate-limited');
      return pauseQueue(error);
    }
    if (error instanceof APIConnectionError && error.neverSent) {
      // Out of attempts: refused by the network, and certainly not sent.
      if (isLastAttempt(job)) return end(job, 'gave-up', errorFields(error));
      await move(job, 'never-sent');
      throw error; // BullMQ retries it with backoff
    }
    if (error instanceof SendOutcomeUnknownError) {
      // This start's request was the POST: the walk's first page is read in the next start.
      await move(job, 'outcome-unknown', {
        reconcile: startWalk(job.data.startedAt ?? job.timestamp, deps.clockSkewMs),
      });
      return again(job, token);
    }
    if (error instanceof ValidationError || (error instanceof APIError && error.status < 500)) {
      return end(job, 'refused', errorFields(error));
    }
    throw error; // anything else: still `in-flight`, so the next attempt reconciles
  };

  /** One step of the reconcile walk (walk.ts): one request, then back to the queue or the end. */
  const reconcile = async (job: SendJob, token: string | undefined): Promise<SendJobResult> => {
    if (!job.data.reconcile) {
      // A re-run that finds the mark (a crash), or a walk that never began: start one.
      await move(job, 'rerun', { reconcile: startWalk(job.data.startedAt ?? job.timestamp, deps.clockSkewMs) });
    }
    const { params, reconcile: progress } = job.data as SendJobData & { reconcile: WalkProgress };
    let result: WalkResult;
    try {
      const step = await gate.run(() => walkStep(client, reconcileParamsOf(params), progress, deps.requestsPerSecond));
      if ('progress' in step) {
        await move(job, 'page', { reconcile: step.progress });
        return again(job, token);
      }
      result = step.result;
    } catch (error) {
      if (error instanceof RateLimitError) return pauseQueue(error);
      if (isLastAttempt(job)) {
        return end(job, 'not-found', {
          ...errorFields(error),
          message: `Reconciling failed: ${errorFields(error).message}`,
        });
      }
      throw error; // still `in-flight`, its progress kept: the next attempt resumes the walk
    }
    if (result.status === 'found') return accepted(job, token, 'found', result.log);
    const why =
      result.status === 'ambiguous'
        ? `${result.candidates} message logs match it: only you can tell whether one of them is this send`
        : result.complete
          ? `no message log matches it (${result.pages} pages read, back to its start)`
          : result.stoppedBy === 'page-ignored'
            ? `no message log matches it in the ${result.pages} pages read (the service answered another page than the one asked, so the walk stopped)`
            : `no message log matches it in the ${result.pages} pages read (the walk's cap ended it)`;
    return end(job, result.status, {
      name: 'SendOutcomeUnknownError',
      message: `The send may have reached the service, but ${why}. It was not sent again: queue.resend(id) sends it again if you decide to.`,
    });
  };

  const poll = async (job: SendJob, token: string | undefined): Promise<SendJobResult> => {
    const track = deps.track;
    const { logId, track: state } = job.data;
    if (!track || !state || logId === undefined) return { status: 'sent', logId };
    const id = String(job.id);
    let status = state.status;
    let unchanged = state.unchanged + 1;
    try {
      const log = await gate.run(() => client.messages.get(logId));
      if (log.delivery_status !== state.status) {
        unchanged = 0;
        status = log.delivery_status;
        if (status === 'delivered' || status === 'read') await announce({ id, status, log });
      }
      if (status === 'read' || (track.until === 'delivered' && status === 'delivered')) {
        await move(job, 'reached');
        return { status: 'sent', logId, delivery: status };
      }
    } catch (error) {
      if (error instanceof RateLimitError) return pauseQueue(error);
      if (error instanceof NotFoundError || !transient(error)) {
        await move(job, 'gone');
        deps.logger?.warn('delivery tracking ended: the message log cannot be read', { id, logId });
        return { status: 'sent', logId, delivery: 'not-found' };
      }
    }
    const wait = nextPollDelay(track.interval, unchanged, deps.random ?? Math.random);
    if (Date.now() + wait >= state.deadline) {
      await move(job, 'expired');
      await announce({ id, status: 'delivery-timeout' });
      return { status: 'sent', logId, delivery: 'delivery-timeout' };
    }
    await move(job, unchanged === 0 ? 'changed' : 'unchanged', {
      track: { ...state, unchanged, polls: state.polls + 1, ...(status === undefined ? {} : { status }) },
    });
    return delay(job, token, wait);
  };

  /**
   * A start in a finished phase: a crash after the phase was recorded, before the job ended. A
   * crash between `accepted` and its announcement would lose the `sent` update: it is published
   * again (updates() is at least once per status), with the log read once more, then tracked.
   * A job whose tracking already began (or ended) only finishes. A crash between recording
   * `failed` or `unknown` and ending the job would have completed it as sent, its update never
   * published: the update is published again, and the job ends failed, as it was to.
   */
  const finish = async (job: SendJob, token: string | undefined): Promise<SendJobResult> => {
    const { phase, logId, track, error } = job.data;
    if (phase === 'failed' || phase === 'unknown') {
      const why = error ?? { name: 'Error', message: `ended ${phase}` };
      await announce({ id: String(job.id), status: phase, error: why });
      throw new bull.UnrecoverableError(`${phase}: ${why.message}`);
    }
    if (phase !== 'sent' || logId === undefined || track !== undefined) return { status: 'sent', logId };
    await move(job, 'restart');
    let log: MessageLog | undefined;
    try {
      log = await gate.run(() => client.messages.get(logId));
    } catch (error) {
      if (error instanceof RateLimitError) return pauseQueue(error);
      // The update still goes out, without the log: the send itself is certain.
    }
    await announce({ id: String(job.id), status: 'sent', ...(log ? { log } : {}) });
    return startTracking(job, token, logId);
  };

  return async (job: SendJob, token?: string): Promise<SendJobResult> => {
    switch (stepOf(job.data.phase)) {
      case 'send':
        return send(job, token);
      case 'reconcile':
        // A re-run that finds the mark: a POST may have gone out. Never send blindly.
        return reconcile(job, token);
      case 'poll':
        return poll(job, token);
      default:
        return finish(job, token);
    }
  };
}
