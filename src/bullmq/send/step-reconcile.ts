import { RateLimitError } from '../../index.js';
import { errorFields } from './error-fields.js';
import type { JobControl } from './job-control.js';
import type { SendJobData, SendJobResult } from './job-data.js';
import { reconcileParamsOf } from './params.js';
import type { ProcessDeps, SendJob, Step } from './process-deps.js';
import { startWalk, type WalkProgress, type WalkResult } from './walk.js';
import { walkStep } from './walk-step.js';

/** The `reconcile` step: one step of the reconcile walk (walk.ts): one request, then back to the queue or the end. */
export function reconcileStep(deps: ProcessDeps, control: JobControl): Step {
  const { client, gate } = deps;
  const { move, pauseQueue, end, isLastAttempt, again, accepted } = control;

  return async (job: SendJob, token: string | undefined): Promise<SendJobResult> => {
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
}
