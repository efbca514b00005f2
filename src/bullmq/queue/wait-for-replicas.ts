import { DatastoreError, namedIds } from '../errors.js';
import type { Confirmation, Replication, ReplicaWait } from '../store/types.js';

/**
 * Resolves once `wait.replicas` replicas hold every one of `ids`, just enqueued on queue `queue`;
 * else rejects with a `DatastoreError` (`not-replicated`) that names them and says they ARE stored
 * on the primary (so the caller does not enqueue them again under new ids).
 */
export async function awaitReplicas(
  replication: Replication,
  queue: string,
  ids: readonly string[],
  wait: ReplicaWait,
): Promise<void> {
  let answers: Confirmation[];
  try {
    answers = await Promise.all(ids.map((id) => replication.confirm(id, undefined, wait)));
  } catch (error) {
    throw notReplicated(queue, ids, wait, 'the replicas could not be asked (the connection failed)', error);
  }
  const missing = ids.filter((_, i) => answers[i] === 'missing');
  if (missing.length > 0) throw rolledBack(queue, missing);
  const unconfirmed = ids.filter((_, i) => answers[i] !== 'confirmed' && answers[i] !== 'durable');
  if (unconfirmed.length === 0) return;
  const why = answers.includes('no-replica')
    ? 'the primary has no replica connected'
    : `fewer than ${wait.replicas} replicas acknowledged them within ${wait.timeout} ms`;
  throw notReplicated(queue, unconfirmed, wait, why);
}

/** Sends the primary reached now does not hold: a failover came between the enqueue and the wait. */
function rolledBack(queue: string, ids: readonly string[]): DatastoreError {
  return new DatastoreError(
    'rolled-back',
    `${ids.length} send(s) of queue '${queue}' (ids: ${namedIds(ids)}) are not stored: a failover came between the enqueue and waitForReplicas, and the primary now in charge does not hold them. Enqueue them again with the same ids (a stored id is not stored twice).`,
    { ids },
  );
}

function notReplicated(
  queue: string,
  ids: readonly string[],
  wait: ReplicaWait,
  why: string,
  cause?: unknown,
): DatastoreError {
  return new DatastoreError(
    'not-replicated',
    `${ids.length} send(s) of queue '${queue}' (ids: ${namedIds(ids)}) ARE stored on the primary but not confirmed on ${wait.replicas} replica(s) (waitForReplicas): ${why}. A failover now could roll them back. Do not enqueue them under new ids; enqueueing them again with the same ids is safe (a stored id is not stored twice) and waits for the replicas again.`,
    { ids, ...(cause === undefined ? {} : { cause }) },
  );
}
