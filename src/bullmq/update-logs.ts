import type { Queue } from 'bullmq';
import type { Backend } from './backend.js';
import type { BullMQModule } from './load.js';
import type { UpdateLog } from './update-log.js';
import { postgresUpdateLog } from './update-log-postgres.js';
import { redisUpdateLog } from './update-log-redis.js';

/** The update log of a queue, in the queue's datastore. */
export function updateLogOf(bull: BullMQModule, backend: Backend, queue: Queue): UpdateLog {
  return backend.kind === 'postgres' ? postgresUpdateLog(queue) : redisUpdateLog(bull, backend, queue);
}
