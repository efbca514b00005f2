import { runtimeClock, type WaitClock } from '../../internal/waiting/clock.js';
import { MinHeap } from '../../internal/waiting/heap.js';

/** Time for the scheduler: injectable so its tests are exact. */
export type SchedulerClock = Pick<WaitClock, 'now' | 'setTimeout' | 'clearTimeout'>;

interface Ticket {
  /**
   * Its place in the timer heap: when it is due (or expires, if that comes first) while `timed`;
   * when it expires while `watched`.
   */
  key: number;
  /** A poll needs a slot (concurrency and rate); a sleep only needs its time to come. */
  readonly needsSlot: boolean;
  /** A poll not started by then is answered `undefined` at that time: its caller's deadline passed. */
  readonly expiresAt: number;
  /**
   * `timed`: in the heap until due; `queued`: due, waiting for a slot; `watched`: queued and in
   * the heap again under its expiry time; `done`: answered.
   */
  state: 'timed' | 'queued' | 'watched' | 'done';
  answer: (release: (() => void) | undefined) => void;
}

/** Answered tickets are left where they are (no O(n) removal) and swept once they are this many and over half. */
const SWEEP_AT = 64;

/**
 * One queue for every pending `waitForDelivery` of a client: each wait asks for a slot at the time
 * its next poll is due, and the scheduler hands slots out in due order while keeping under
 * `maxConcurrent` polls in flight and `maxPerSecond` poll starts.
 *
 * Why: 10,000 waits with their own timers would fire 10,000 requests whenever their intervals
 * line up and hammer the service (and the tenant's rate limit). Here they share one timer, and
 * the request rate is bounded whatever the number of waits.
 *
 * Every ticket is answered at its own time whatever the slots do: a sleep when it is due, a poll
 * that cannot start before its `expiresAt` at that instant. A queued poll stays in the timer heap
 * under its expiry time for that, so one timer still serves every deadline.
 */
export class PollScheduler {
  /** Tickets waiting for a time: to become due (`timed`), or to expire (`watched`). */
  #heap = new MinHeap<Ticket>();
  /** Due polls waiting for a slot, in due order; `#queue[#head]` is the oldest. */
  #queue: Ticket[] = [];
  #head = 0;
  /** Answered tickets still in `#heap` / `#queue`, skipped when reached. */
  #staleInHeap = 0;
  #staleInQueue = 0;
  /** Tickets not answered yet. */
  #live = 0;
  readonly #spacing: number;
  readonly #maxConcurrent: number;
  readonly #clock: SchedulerClock;
  #inFlight = 0;
  #nextStart = Number.NEGATIVE_INFINITY;
  #timer: unknown;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(options: { maxConcurrent: number; maxPerSecond: number }, clock: SchedulerClock = runtimeClock) {
    this.#maxConcurrent = options.maxConcurrent;
    this.#spacing = 1000 / options.maxPerSecond;
    this.#clock = clock;
  }

  /** Polls and sleeps not answered yet (waiting for their time or for a slot). */
  get pending(): number {
    return this.#live;
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
   * `undefined` at `expiresAt` (a `now()` time) if it has not started by then, however busy the
   * slots are. Call `release` when the poll is done. Rejects with the signal's reason if it aborts first.
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
      const ticket: Ticket = {
        key: Math.min(this.#clock.now() + Math.max(0, delay), expiresAt),
        needsSlot,
        expiresAt,
        state: 'timed',
        answer: resolve,
      };
      if (signal) {
        const onAbort = () => {
          this.#retire(ticket, 'elsewhere');
          reject(signal.reason);
          this.#pump();
        };
        ticket.answer = (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }
      this.#live++;
      this.#heap.push(ticket);
      this.#pump();
    });
  }

  /**
   * Answers what is due: first every ticket whose time has come (sleeps, expiries, polls becoming
   * due, which join the slot queue), then queued polls in due order while a slot is free and the
   * rate spacing allows; then sets the one timer for whatever comes next.
   */
  #pump(): void {
    const heap = this.#heap;
    const now = this.#clock.now();
    let fresh: Ticket[] | undefined;
    for (let next = heap.peek(); next !== undefined && (next.state === 'done' || next.key <= now); next = heap.peek()) {
      heap.pop();
      if (next.state === 'done') this.#staleInHeap--;
      else if (!next.needsSlot || now >= next.expiresAt) this.#answer(next, undefined, 'heap');
      else {
        next.state = 'queued';
        this.#queue.push(next);
        fresh ??= [];
        fresh.push(next);
      }
    }
    while (this.#inFlight < this.#maxConcurrent && this.#nextStart <= now) {
      const next = this.#takeQueued();
      if (next === undefined) break;
      this.#inFlight++;
      this.#nextStart = Math.max(now, this.#nextStart) + this.#spacing;
      let released = false;
      this.#answer(
        next,
        () => {
          if (released) return;
          released = true;
          this.#inFlight--;
          this.#pump();
        },
        'queue',
      );
    }
    // Polls that must wait for a slot go back in the heap under their expiry time, so the timer
    // answers them then; a poll that starts at once never does (no stale entry to sweep later).
    for (const ticket of fresh ?? []) {
      if (ticket.state !== 'queued' || ticket.expiresAt === Number.POSITIVE_INFINITY) continue;
      ticket.state = 'watched';
      ticket.key = ticket.expiresAt;
      heap.push(ticket);
    }
    let wakeAt = heap.peek()?.key ?? Number.POSITIVE_INFINITY;
    // A free slot held back only by the rate spacing: wake when the spacing allows the next start.
    if (this.#inFlight < this.#maxConcurrent && this.#queuedCount() > 0) wakeAt = Math.min(wakeAt, this.#nextStart);
    if (wakeAt === Number.POSITIVE_INFINITY) this.#clearTimer();
    else this.#wakeAt(wakeAt, now);
  }

  #answer(ticket: Ticket, release: (() => void) | undefined, from: 'heap' | 'queue'): void {
    this.#retire(ticket, from);
    ticket.answer(release);
  }

  /** Marks a ticket answered, counting the copies of it left behind in the heap and the queue. */
  #retire(ticket: Ticket, from: 'heap' | 'queue' | 'elsewhere'): void {
    const { state } = ticket;
    if ((state === 'timed' || state === 'watched') && from !== 'heap') this.#staleInHeap++;
    if ((state === 'queued' || state === 'watched') && from !== 'queue') this.#staleInQueue++;
    ticket.state = 'done';
    this.#live--;
    this.#sweep();
  }

  #takeQueued(): Ticket | undefined {
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const next = queue[this.#head++] as Ticket;
      if (next.state !== 'done') return next;
      this.#staleInQueue--;
    }
    queue.length = 0;
    this.#head = 0;
    return undefined;
  }

  #queuedCount(): number {
    return this.#queue.length - this.#head - this.#staleInQueue;
  }

  /** Drops answered tickets once they are most of a structure, so memory follows the live tickets. */
  #sweep(): void {
    const heap = this.#heap;
    if (this.#staleInHeap > SWEEP_AT && this.#staleInHeap * 2 > heap.size) {
      const live: Ticket[] = [];
      for (let next = heap.pop(); next !== undefined; next = heap.pop()) if (next.state !== 'done') live.push(next);
      // Popped in key order, so each push below stays a leaf: the rebuild is linear.
      for (const ticket of live) heap.push(ticket);
      this.#staleInHeap = 0;
    }
    const waiting = this.#queue.length - this.#head;
    if (this.#staleInQueue > SWEEP_AT && this.#staleInQueue * 2 > waiting) {
      this.#queue = this.#queue.slice(this.#head).filter((ticket) => ticket.state !== 'done');
      this.#head = 0;
      this.#staleInQueue = 0;
    } else if (this.#head > SWEEP_AT && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
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
      Math.max(0, Math.ceil(at - now)),
    );
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }
}
