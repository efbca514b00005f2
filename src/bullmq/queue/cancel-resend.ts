import type { Queue } from 'bullmq';
import { ValidationError } from '../../index.js';
import { checkJobId } from '../checks.js';
import type { SendJobData, SendJobResult } from '../send/job-data.js';
import { next } from '../send/states.js';
import { explained, explaining } from '../store/backend.js';
import type { DatastoreGuard } from '../store/guard.js';
import type { UpdateLog } from '../store/update-log.js';

/**
 * `queue.cancel`: removes a send never POSTed (`queued`) and announces `cancelled`; `false` when it
 * is being sent or was sent, ended, or is not kept.
 */
export async function cancelSend(
  queue: Queue<SendJobData, SendJobResult>,
  guard: DatastoreGuard,
  updates: UpdateLog,
  id: string,
): Promise<boolean> {
  const jobId = checkJobId(id, 'id') as string;
  await guard.check();
  const job = await explaining(queue.getJob(jobId));
  // Only a send that was never POSTed: `queued` (a retry after a refused connection is too).
  if (job?.data.phase !== 'queued') return false;
  try {
    await job.remove();
  } catch (error) {
    // Taken by a worker between the look and the removal: it is being sent.
    if (/locked|could not be removed/i.test(String((error as Error)?.message))) return false;
    throw explained(error);
  }
  await updates.publish({ id: jobId, status: 'cancelled' });
  return true;
}

/** `queue.resend`: a send that ended `unknown` or `failed` moved by the table's `resend`, logged on the job, and retried. */
export async function resendSend(
  queue: Queue<SendJobData, SendJobResult>,
  queueName: string,
  id: string,
): Promise<void> {
  const jobId = checkJobId(id, 'id') as string;
  const job = await queue.getJob(jobId);
  const phase = job?.data.phase;
  if (!job || (phase !== 'unknown' && phase !== 'failed')) {
    throw new ValidationError('Invalid resend', [
      {
        path: 'id',
        message: job
          ? `send '${jobId}' is '${phase}', not 'unknown' or 'failed': only a send that ended may be sent again`
          : `no send '${jobId}' is kept in queue '${queueName}' (it never existed, or its retention passed)`,
      },
    ]);
  }
  const resends = (job.data.resends ?? 0) + 1;
  const { error: _previous, ...data } = job.data;
  await job.updateData({ ...data, phase: next(phase, 'resend'), resends });
  await job.log(`resend #${resends} at ${new Date().toISOString()} after '${phase}'`);
  await job.retry('failed');
}
