import { Fifo, type FifoNode } from '../../seam/timing.js';

/**
 * The per-endpoint share of a relay process's delivery slots: at most `cap` attempts in flight at
 * one endpoint, counted in this process's memory (`concurrency` is per process, as documented).
 * An endpoint with nothing in flight holds no entry, so the memory follows the endpoints that are
 * busy, not the endpoints configured.
 */
export class EndpointSlots {
  readonly #cap: number;
  readonly #inFlight = new Map<string, number>();

  constructor(cap: number) {
    this.#cap = cap;
  }

  /** Takes a slot of `key`'s share: false when the endpoint already has `cap` attempts in flight. */
  take(key: string): boolean {
    const held = this.#inFlight.get(key) ?? 0;
    if (held >= this.#cap) return false;
    this.#inFlight.set(key, held + 1);
    return true;
  }

  /** Gives back a slot taken with `take`. */
  release(key: string): void {
    const held = (this.#inFlight.get(key) ?? 0) - 1;
    if (held > 0) this.#inFlight.set(key, held);
    else this.#inFlight.delete(key);
  }

  /** Attempts in flight, every endpoint together. */
  get total(): number {
    let sum = 0;
    for (const held of this.#inFlight.values()) sum += held;
    return sum;
  }
}

/** The first wait of a delivery put back because its endpoint was at its cap. */
export const FIRST_BOUNCE_MS = 250;

/**
 * How long a delivery put back waits before it is taken again: `FIRST_BOUNCE_MS` doubled with each
 * time it was put back (`bounces`, 1 the first time), at most `longest`, each wait between half
 * and all of that ("equal jitter"). Growing, so that a long backlog at a stalled endpoint costs the
 * datastore a few operations per delivery per `longest`, not one per slot freed; jittered, so that
 * the deliveries put back together do not all come back in the same instant.
 */
export function bounceDelay(bounces: number, longest: number, random: () => number = Math.random): number {
  const ceiling = Math.min(longest, FIRST_BOUNCE_MS * 2 ** Math.max(0, Math.min(30, bounces - 1)));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** A delivery waiting for a place in the pool. */
interface Waiter extends FifoNode<Waiter> {
  readonly resolve: (release: () => void) => void;
  readonly reject: (reason: unknown) => void;
}

/** An attempt that has run for `parkAfter` and waits for a parked place to free its young one. */
interface Parking extends FifoNode<Parking> {
  readonly park: () => void;
}

/**
 * The places for attempts a relay process makes at once, every endpoint together: what bounds a
 * burst (an update fanned out to 1,000 endpoints) to `young + parked` requests, sockets and
 * answers in flight, whatever the number of endpoints. A new attempt needs a young place; once it
 * has run for `parkAfter` ms it moves to a parked place if one is free (else as soon as one is),
 * and its young place goes to the next delivery. So an endpoint that stalls (each attempt held to
 * `timeout`) keeps a young place, which every other endpoint's deliveries wait for, for
 * `parkAfter` at most, as long as fewer than `parked` attempts are parked at once. Deliveries wait
 * for a place in the order they asked.
 */
export class AttemptPool {
  readonly #young: number;
  readonly #parked: number;
  readonly #parkAfter: number;
  readonly #waiting = new Fifo<Waiter>();
  readonly #parking = new Fifo<Parking>();
  #heldYoung = 0;
  #heldParked = 0;
  #closed: unknown;

  constructor(young: number, parked: number, parkAfter: number) {
    this.#young = young;
    this.#parked = parked;
    this.#parkAfter = parkAfter;
  }

  /**
   * Resolves with the function that gives the place back (once: later calls do nothing), as soon
   * as a young place is free; rejects with the reason given to `close()`.
   */
  acquire(): Promise<() => void> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    if (this.#heldYoung < this.#young) return Promise.resolve(this.#take());
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject, prev: undefined, next: undefined });
    });
  }

  /** Refuses every delivery waiting for a place, and every later one. */
  close(reason: unknown): void {
    this.#closed = reason;
    for (let waiter = this.#waiting.head; waiter; waiter = this.#waiting.head) {
      this.#waiting.remove(waiter);
      waiter.reject(reason);
    }
  }

  /** Places taken now: young (attempts that have not run for `parkAfter` yet), and parked. */
  get held(): { readonly young: number; readonly parked: number } {
    return { young: this.#heldYoung, parked: this.#heldParked };
  }

  #take(): () => void {
    this.#heldYoung++;
    let state: 'young' | 'parking' | 'parked' | 'ended' = 'young';
    const parking: Parking = {
      park: () => {
        state = 'parked';
        this.#heldParked++;
        this.#youngFreed();
      },
      prev: undefined,
      next: undefined,
    };
    // unref: an attempt ends by its own deadline; this timer must not hold the process meanwhile.
    const timer = setTimeout(() => {
      if (this.#heldParked < this.#parked) parking.park();
      else {
        state = 'parking';
        this.#parking.push(parking);
      }
    }, this.#parkAfter).unref();
    return () => {
      if (state === 'ended') return;
      clearTimeout(timer);
      if (state === 'parked') {
        this.#heldParked--;
        const next = this.#parking.head;
        if (next) {
          this.#parking.remove(next);
          next.park();
        }
      } else {
        if (state === 'parking') this.#parking.remove(parking);
        this.#youngFreed();
      }
      state = 'ended';
    };
  }

  /** A young place was given back (its attempt ended, or was parked): the next delivery takes it. */
  #youngFreed(): void {
    this.#heldYoung--;
    const next = this.#waiting.head;
    if (next && this.#heldYoung < this.#young) {
      this.#waiting.remove(next);
      next.resolve(this.#take());
    }
  }
}
