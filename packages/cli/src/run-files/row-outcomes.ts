import type { Row } from '../rows/rows.js';

/** What became of a row: sent; refused (safe to fix and send again); unknown (may have been sent); not attempted. */
export type RowOutcome = 'sent' | 'failed' | 'unknown' | 'remaining';

/** A row in the queue, until its outcome is known and written. */
export interface QueuedRow {
  readonly row: Row;
  outcome?: RowOutcome;
  /** Why it failed or is unknown: written next to it. */
  reason?: string;
}

/**
 * Writes each row's outcome in the order of the file, as soon as every row before it has one:
 * sends finish out of order, and the failed, unknown and remaining rows' files keep the input's
 * order. Holds only the rows from the oldest one still in flight to the newest one read.
 *
 * @example
 * ```ts
 * const outcomes = new RowOutcomes((queued) => sinks[queued.outcome]?.write(rowText(file, queued.row, queued.reason)))
 * const queued = outcomes.add(row); outcomes.settle(queued, 'sent'); await outcomes.flush()
 * ```
 */
export class RowOutcomes {
  #queue: QueuedRow[] = [];
  /** Index of the queue's first row (the ones before it were written). */
  #head = 0;
  /** The flush waiting for the disk, if one is. */
  #waiting: Promise<void> | undefined;
  /** How many rows ended each way, counted as they settle. */
  readonly counts: Record<RowOutcome, number> = { sent: 0, failed: 0, unknown: 0, remaining: 0 };

  constructor(private readonly write: (queued: QueuedRow) => Promise<void> | undefined) {}

  /** Queues a row just read, its outcome not known yet. */
  add(row: Row): QueuedRow {
    const queued: QueuedRow = { row };
    this.#queue.push(queued);
    return queued;
  }

  /** Records what became of a queued row. */
  settle(queued: QueuedRow, outcome: RowOutcome, reason?: string): void {
    queued.outcome = outcome;
    if (reason !== undefined) queued.reason = reason;
    this.counts[outcome]++;
  }

  /** The rows queued without an outcome, in order. */
  unsettled(): QueuedRow[] {
    return this.#queue.slice(this.#head).filter((queued) => queued.outcome === undefined);
  }

  /**
   * Writes the settled rows at the head of the queue (one flush at a time: the reader of the file
   * and the loop over the results both call it), waiting for the disk when it is behind. Resolves
   * at once (no promise made) when the writes did not have to wait, as they mostly do not.
   */
  flush(): Promise<void> | undefined {
    // A flush waiting for the disk goes on with every row settled meanwhile: wait for it.
    return this.#waiting ?? this.#drain();
  }

  #drain(): Promise<void> | undefined {
    while (this.#head < this.#queue.length) {
      const queued = this.#queue[this.#head] as QueuedRow;
      if (queued.outcome === undefined) break;
      this.#head++;
      const wait = this.write(queued);
      if (wait) {
        this.#waiting = wait.then(() => {
          this.#waiting = undefined;
          return this.#drain();
        });
        return this.#waiting;
      }
    }
    // Drop the written rows now and then, not on each one (a shift is O(n)).
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return undefined;
  }
}
