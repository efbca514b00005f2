import { type DatastoreGuard, guarded } from '../store/guard.js';
import type { UpdateLog } from '../store/update-log.js';
import type { MessagingUpdate, UpdatesOptions } from '../types.js';

/**
 * The readers of a queue's `updates()`: each with a guard of its own (a loss is reported to each
 * that saw the queue before it), and where each starts, fixed at its call.
 */
export class UpdateReaders {
  readonly #log: UpdateLog;
  readonly #makeGuard: () => DatastoreGuard;
  /** Where readers start, still being read: the queue's sends wait for them. */
  readonly #positions = new Set<Promise<unknown>>();

  constructor(log: UpdateLog, makeGuard: () => DatastoreGuard) {
    this.#log = log;
    this.#makeGuard = makeGuard;
  }

  /** A reader of the updates from `options.from` (options already checked). */
  open(options: UpdatesOptions): AsyncIterable<MessagingUpdate> {
    // Where reading starts is fixed now, at the call, even if the iteration starts later.
    const position = this.#log.position(options.from);
    position.catch(() => undefined); // the iteration reports it; one never started must not leave it unhandled
    this.#positions.add(position);
    const settled = () => this.#positions.delete(position);
    position.then(settled, settled);
    const log = this.#log;
    const makeGuard = this.#makeGuard;
    return {
      async *[Symbol.asyncIterator]() {
        const guard = makeGuard();
        try {
          await guard.ready();
          const from = await position;
          yield* guarded((signal) => log.read(from, signal), guard, options.signal);
        } finally {
          guard.close();
        }
      },
    };
  }

  /**
   * A reader's start, fixed at its `updates()` call, is read from the datastore: a send made right
   * after the call, by the same queue, waits until it is known, so that the reader sees every
   * update of that send (a worker could otherwise publish `sent` before the start was read, and
   * a reader from `now` would begin after it; seen on PostgreSQL beside two CPU hogs).
   */
  async positionsFixed(): Promise<void> {
    if (this.#positions.size > 0) await Promise.allSettled([...this.#positions]);
  }
}
