import { DatastoreError } from '../errors.js';

/**
 * Keeps a queue's promise "never silently lost" honest about its datastore. At first use it
 * refuses a Redis that can lose what it acknowledged (no append-only file, or an eviction
 * policy), unless the caller opted in, and writes a marker of the queue; afterwards it finds the
 * marker gone when the datastore forgot (a restart without persistence, a flush, an eviction),
 * and reports that once, as a `DatastoreError`, before carrying on with a new marker.
 */
export interface DatastoreGuard {
  /** Resolves once the datastore was checked and the marker written; rejects with `DatastoreError` when refused. */
  ready(): Promise<void>;
  /**
   * `ready()`, then at most once per second a look at the marker: rejects with a `DatastoreError`
   * (`forgot`) the first time it finds it gone or replaced; and with a `DatastoreError`
   * (`rolled-back`) once for each failover found to have rolled back enqueues of this process.
   */
  check(): Promise<void>;
  /** Stops hearing of rolled-back enqueues (a reader that ended). */
  close(): void;
}

/** How often a marker is looked at, at most, and how often a reader asks a guard. */
export const CHECK_MS = 1_000;

/** PostgreSQL keeps what it committed (unless its own durability settings were turned off): nothing to guard. */
export const durableGuard: DatastoreGuard = {
  ready: async () => undefined,
  check: async () => undefined,
  close: () => undefined,
};

/**
 * The updates `read` yields, ended by a `DatastoreError` as soon as the guard finds that the
 * datastore forgot the queue (its log was lost with it: a reader must not wait in silence for
 * updates that are gone). `read` is given a signal that stops it then, or when `signal` aborts.
 */
export async function* guarded<T>(
  read: (signal: AbortSignal) => AsyncGenerator<T>,
  guard: DatastoreGuard,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  const lost = new AbortController();
  const updates = read(signal ? AbortSignal.any([signal, lost.signal]) : lost.signal);
  let failure: DatastoreError | undefined;
  // Other errors (a connection down) are the reader's own to report; this looks only for a loss.
  const look = () =>
    guard.check().catch((error: unknown) => {
      if (!(error instanceof DatastoreError) || failure) return;
      failure = error;
      lost.abort(error);
    });
  // Not what keeps a reading process alive: its connection to the datastore is.
  const timer = setInterval(look, CHECK_MS).unref();
  try {
    for (;;) {
      const next = await updates.next();
      if (failure) throw failure;
      if (next.done) return;
      yield next.value;
    }
  } finally {
    clearInterval(timer);
    await updates.return(undefined);
  }
}
