import { logRepeats } from '../log-repeats.js';
import { jobControl, LockLost } from './job-control.js';
import type { SendJobResult } from './job-data.js';
import type { ProcessDeps, SendJob } from './process-deps.js';
import { stepOf } from './states.js';
import { finishStep } from './step-finish.js';
import { pollStep } from './step-poll.js';
import { reconcileStep } from './step-reconcile.js';
import { sendStep } from './step-send.js';

/** BullMQ's processor for send jobs: one step of the state table per run (see states.ts). */
export function createProcessor(deps: ProcessDeps) {
  const control = jobControl(deps);
  const send = sendStep(deps, control);
  const reconcile = reconcileStep(deps, control);
  const poll = pollStep(deps, control);
  const finish = finishStep(deps, control);
  // A datastore that stalls past lockDuration costs every job waiting meanwhile its lock: said once, with a count.
  const lost = logRepeats(
    deps.logger,
    'MessagingWorker: a job lost its lock while it waited or was sent; this worker wrote nothing more',
  );

  const step = (job: SendJob, token: string | undefined): Promise<SendJobResult> => {
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

  return async (job: SendJob, token?: string): Promise<SendJobResult> => {
    try {
      return await step(job, token);
    } catch (error) {
      if (error instanceof LockLost) lost(error.message);
      throw error; // BullMQ's own write for it is refused too: the job is the new holder's
    }
  };
}
