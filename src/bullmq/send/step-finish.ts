import type { MessageLog } from '../../index.js';
import { RateLimitError } from '../../index.js';
import type { JobControl } from './job-control.js';
import type { SendJobResult } from './job-data.js';
import type { ProcessDeps, SendJob, Step } from './process-deps.js';

/**
 * The step of a start in a finished phase: a crash after the phase was recorded, before the job
 * ended. A crash between `accepted` and its announcement would lose the `sent` update: it is
 * published again (updates() is at least once per status), with the log read once more, then
 * tracked. A job whose tracking already began (or ended) only finishes. A crash between recording
 * `failed` or `unknown` and ending the job would have completed it as sent, its update never
 * published: the update is published again, and the job ends failed, as it was to.
 */
export function finishStep(deps: ProcessDeps, control: JobControl): Step {
  const { bull, client, gate } = deps;
  const { move, announce, pauseQueue, startTracking } = control;

  return async (job: SendJob, token: string | undefined): Promise<SendJobResult> => {
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
}
