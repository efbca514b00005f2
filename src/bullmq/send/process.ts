import { jobControl } from './job-control.js';
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
