import { NotFoundError, RateLimitError } from '../../index.js';
import { nextPollDelay } from '../../seam/timing.js';
import { transient } from './error-fields.js';
import type { JobControl } from './job-control.js';
import type { SendJobResult } from './job-data.js';
import type { ProcessDeps, SendJob, Step } from './process-deps.js';

/** The `poll` step: one delivery poll of a sent message's log, then the next poll delayed, or the end. */
export function pollStep(deps: ProcessDeps, control: JobControl): Step {
  const { client, gate } = deps;
  const { move, announce, pauseQueue, delay } = control;

  return async (job: SendJob, token: string | undefined): Promise<SendJobResult> => {
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
}
