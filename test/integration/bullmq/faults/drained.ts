/**
 * The moment a count of what the service stored is final: the queue holds no send still to run.
 * What the fault and topology files wait for before they check that none was sent twice.
 */
import { DatastoreError, type MessagingQueue } from 'tenant-messaging/bullmq';
import { until } from '../fixture.js';

/**
 * Waits until `queue` holds no send waiting, delayed or active: no worker has a POST left to make
 * for it. A call that fails (a datastore reconnecting, or failing over) is asked again; a
 * `DatastoreError` (a report: a rollback, a loss) is thrown, never swallowed.
 */
export async function untilDrained(queue: MessagingQueue, timeoutMs = 30_000): Promise<void> {
  let last = 'not asked yet';
  await until(
    async () => {
      try {
        const counts = await queue.counts();
        last = JSON.stringify(counts);
        return counts.waiting + counts.active === 0;
      } catch (error) {
        if (error instanceof DatastoreError) throw error;
        last = String(error);
        return false;
      }
    },
    timeoutMs,
    () => `the queue drained (last counts: ${last})`,
  );
}
