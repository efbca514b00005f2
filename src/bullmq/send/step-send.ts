import type { MessageLog } from '../../index.js';
import { APIConnectionError, APIError, RateLimitError, SendOutcomeUnknownError, ValidationError } from '../../index.js';
import { quietUntil } from '../schedule/quiet-hours.js';
import { errorFields } from './error-fields.js';
import { type JobControl, LockLost } from './job-control.js';
import type { SendJobData, SendJobResult } from './job-data.js';
import { MarkNotConfirmed, UNCONFIRMED_RETRY_MS } from './mark.js';
import { sendParamsOf } from './params.js';
import type { ProcessDeps, SendJob, Step } from './process-deps.js';
import { startWalk } from './walk.js';

/** What a start keeps in the job with its next write: the recipient's number, when it was parsed now. */
type Kept = Pick<SendJobData, 'recipient'>;

/** A lane place that ended while its send waited at the fleet gate: the send was not made. */
class LaneLost extends Error {
  override readonly name = 'LaneLost';
}

/** True for what a send throws before its POST: its gate place and lane place are given back. */
const stoppedBeforePost = (error: unknown): boolean =>
  error instanceof MarkNotConfirmed || error instanceof LaneLost || error instanceof LockLost;

/**
 * The `send` step: quiet hours waited out, the `in-flight` mark written (and confirmed) inside the
 * gate, the POST, and what its answer or failure makes of the job.
 */
export function sendStep(deps: ProcessDeps, control: JobControl): Step {
  const { client, gate } = deps;
  const { move, announce, pauseQueue, end, isLastAttempt, again, delay, accepted } = control;
  const random = deps.random ?? Math.random;

  /**
   * A send its lanes hold back, certainly not sent: back to the datastore for `ms` (jittered, so
   * that waiting workers do not ask in the same instant). A POST made again after its mark was
   * given back (mark.ts) finds the job `in-flight`: it waits `queued`, or its next start would
   * reconcile, not send. A `queued` one is not written: its number, if parsed, is stored at its start.
   */
  const waitForLane = async (job: SendJob, token: string | undefined, ms: number, kept: Kept): Promise<never> => {
    if (job.data.phase === 'in-flight') await move(job, 'never-sent', kept);
    return delay(job, token, ms + Math.floor(random() * 10));
  };

  /**
   * The POST, admitted by its lanes and then the gate; `mark` runs first, inside the gate
   * (admitted before the mark). A send whose lane is full goes back to the datastore until a
   * place ends: it holds no worker slot meanwhile, and uses no attempt. A mark the replicas
   * confirm late is POSTed under, once, admitted again (a second pass without a mark: a loop, not
   * a call back into here).
   */
  const post = async (job: SendJob, token: string | undefined, mark?: (kept: Kept) => Promise<void>) => {
    for (let marking = mark; ; marking = undefined) {
      const lanes = deps.lanes && (await deps.lanes.admit(job.data));
      // The recipient's canonical number: stored with the send, or parsed at admission and stored
      // with the job's next write, so that its later starts (retries, a give-back) do not parse it again.
      const recipient = lanes?.recipient;
      const kept: Kept = recipient === undefined || recipient === job.data.recipient ? {} : { recipient };
      if (lanes && 'waitMs' in lanes) return waitForLane(job, token, lanes.waitMs, kept);
      let log: MessageLog;
      try {
        log = await gate.run(async () => {
          // A wait at the gate may outlast a lane place's lease: renewed, or the send waits again.
          if (lanes && !(await deps.lanes?.renew(lanes.held))) throw new LaneLost();
          // A second pass follows a wait for a late confirmation: still this worker's job?
          await (marking ? marking(kept) : control.stillHeld(job));
          return client.messages.send(sendParamsOf(job.data.params));
        }, stoppedBeforePost);
      } catch (error) {
        const notSent = stoppedBeforePost(error);
        if (lanes) await (notSent ? deps.lanes?.release(lanes.held) : deps.lanes?.settle(lanes.held));
        if (error instanceof LaneLost) return waitForLane(job, token, 1, kept);
        if (error instanceof LockLost) throw error; // another worker's job now: nothing more from this one
        if (await confirmedLate(job, error)) continue;
        return sendFailed(job, token, error);
      }
      if (lanes) await deps.lanes?.settle(lanes.held);
      return accepted(job, token, 'accepted', log);
    }
  };

  /**
   * A mark not confirmed in time, asked again outside the gate: true when a replica has it now
   * (the send may go under it). One still unconfirmed is given back by `sendFailed`.
   */
  const confirmedLate = async (job: SendJob, error: unknown): Promise<boolean> => {
    const { startedAt } = job.data;
    if (!(error instanceof MarkNotConfirmed) || error.answer !== 'unconfirmed' || !startedAt) return false;
    return (await deps.marks?.settle(String(job.id), startedAt)) === true;
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
    return post(job, token, async (kept) => {
      await move(job, 'start', { startedAt, ...kept }, ['reconcile']);
      const answer = (await deps.marks?.confirm(String(job.id), startedAt)) ?? 'go';
      if (answer !== 'go') throw new MarkNotConfirmed(answer);
    });
  };

  const sendFailed = async (job: SendJob, token: string | undefined, error: unknown): Promise<SendJobResult> => {
    if (error instanceof MarkNotConfirmed) {
      // Not POSTed, and not confirmed when asked again (confirmedLate): given back (certainly not
      // sent), delayed, without using an attempt.
      await move(job, 'never-sent');
      return delay(job, token, UNCONFIRMED_RETRY_MS);
    }
    if (error instanceof RateLimitError) {
      await move(job, 'rate-limited');
      return pauseQueue(error, job);
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

  return send;
}
