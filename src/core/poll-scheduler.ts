import { MinHeap } from '../internal/heap.js';

/** Time for the scheduler: injectable so its tests are exact. */
export interface SchedulerClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: SchedulerClock = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Ticket {
  /** When the ticket is due. */
  key: number;
  /** A poll needs a slot (concurrency and rate); a sleep only needs its time to come. */
  readonly needsSlot: boolean;
  /** A poll not started by then is answered `undefined`: its caller's deadline passed. */
  readonly expiresAt: number;
  grant: (release: (() => void) | undefined) => void;
  cancelled: boolean;
}

/**
 * One queue for every pending `waitForDelivery` of a client: each wait asks for a slot at the time
 * its next poll is due, and the scheduler hands slots out in due order while keeping under
 * `maxConcurrent` polls in flight and `maxPerSecond` poll starts.
 *
 * Why: 10,000 waits with their own timers would fire 10,000 requests whenever their intervals
 * line up and hammer the service (and the tenant's rate limit). Here they share one timer, and
 * the request rate is bounded whatever the number of waits.
 */
export class PollScheduler {
  readonly #heap = new MinHeap<Ticket>();
  readonly #spacing: number;
  readonly #maxConcurrent: number;
  readonly #clock: SchedulerClock;
  #inFlight = 0;
  #nextStart = Number.NEGATIVE_INFINITY;
  #timer: unknown;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(options: { maxConcurrent: number; maxPerSecond: number }, clock: SchedulerClock = realClock) {
    this.#maxConcurrent = options.maxConcurrent;
    this.#spacing = 1000 / options.maxPerSecond;
    this.#clock = clock;
  }

  /** Polls waiting for a slot. */
  get pending(): number {
    return this.#heap.size;
  }

  /** Polls holding a slot. */
  get inFlight(): number {
    return this.#inFlight;
  }

  now(): number {
    return this.#clock.now();
  }

  /**
   * Resolves with a `release` function once a poll due `delay` ms from now may start, or with
   * `undefined` if `expiresAt` (a `now()` time) passes first. Call `release` when the poll is done.
   * Rejects with the signal's reason if it aborts first.
   */
  acquire(delay: number, signal: AbortSignal | undefined, expiresAt: number): Promise<(() => void) | undefined> {
    return this.#enqueue(delay, signal, true, expiresAt);
  }

  /** Waits `delay` ms on the shared timer, without taking a slot. */
  async sleep(delay: number, signal: AbortSignal | undefined): Promise<void> {
    await this.#enqueue(delay, signal, false, Number.POSITIVE_INFINITY);
  }

  #enqueue(
    delay: number,
    signal: AbortSignal | undefined,
    needsSlot: boolean,
    expiresAt: number,
  ): Promise<(() => void) | undefined> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        ticket.cancelled = true;
        reject(signal?.reason);
        this.#pump();
      };
      const ticket: Ticket = {
        key: this.#clock.now() + Math.max(0, delay),
        needsSlot,
        expiresAt,
        cancelled: false,
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#heap.push(ticket);
      this.#pump();
    });
  }

  /**
   * Hands out what is due. Tickets leave in due order; a poll also waits for a free slot and for
   * the rate spacing. Under saturation a due sleep or an expired poll behind a waiting poll is
   * answered when that poll starts: at most one in-flight poll later.
   */
  #pump(): void {
    const heap = this.#heap;
    for (;;) {
      const next = heap.peek();
      if (next === undefined) {
        this.#clearTimer();
        return;
      }
      if (next.cancelled) {
        heap.pop();
        continue;
      }
      const now = this.#clock.now();
      if (next.key > now) {
        this.#wakeAt(next.key, now);
        return;
      }
      if (!next.needsSlot || now >= next.expiresAt) {
        heap.pop();
        next.grant(undefined);
        continue;
      }
      if (this.#inFlight >= this.#maxConcurrent) return; // a release pumps again
      if (this.#nextStart > now) {
        this.#wakeAt(this.#nextStart, now);
        return;
      }
      heap.pop();
      this.#inFlight++;
      this.#nextStart = Math.max(now, this.#nextStart) + this.#spacing;
      let released = false;
      next.grant(() => {
        if (released) return;
        released = true;
        this.#inFlight--;
        this.#pump();
      });
    }
  }

  #wakeAt(at: number, now: number): void {
    if (this.#timer !== undefined && this.#timerAt <= at) return;
    this.#clearTimer();
    this.#timerAt = at;
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.ceil(at - now),
    );
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }
}
