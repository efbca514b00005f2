/**
 * Closing within a bound, whatever the datastore does. BullMQ's graceful closes wait for the
 * datastore: a `close()` or `disconnect()` of a Redis connection that is between two reconnection
 * attempts (the server killed or unreachable, the process out of file descriptors) waits for an
 * `end` event that never comes. So every close the relay makes is bounded, and what did not
 * close in time is disconnected without waiting: the socket and the reconnection timer go at once,
 * and only the promise of the graceful close is left pending, holding nothing.
 */

/** A BullMQ object the relay closes: a `Queue`, a `QueueEvents`. */
export interface Closable {
  close(): Promise<unknown>;
  disconnect(): Promise<unknown>;
}

/** How long a connection is given to close gracefully before it is disconnected. */
export const CLOSE_MS = 1_000;

/**
 * Whether `promise` settles (fulfilled or rejected) within `ms`. Its rejection is handled here;
 * the timer is cleared as soon as it settles, so nothing outlives the wait.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes `closable` gracefully within `ms`; if the datastore did not let it, disconnects it
 * without waiting (BullMQ's `disconnect` drops the socket and the reconnection timer at once,
 * even when its promise never settles).
 */
export async function closeWithin(closable: Closable, ms: number = CLOSE_MS): Promise<void> {
  if (await settlesWithin(closable.close(), ms)) return;
  await settlesWithin(closable.disconnect(), ms);
}
