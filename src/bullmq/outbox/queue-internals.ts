import type { SendJobData } from '../send/job-data.js';

/**
 * What the outbox needs of a `MessagingQueue` that its public surface does not offer: adding
 * sends already checked and stored (in the outbox's table), each with its job id. Kept out of the
 * class's public surface; set by the queue's constructor.
 */
export interface QueueInternals {
  /** Adds the jobs (ids given); a job id already in the queue is not added again (BullMQ). */
  addStored(jobs: readonly { readonly id: string; readonly data: SendJobData }[]): Promise<void>;
}

export const queueInternals = new WeakMap<object, QueueInternals>();
