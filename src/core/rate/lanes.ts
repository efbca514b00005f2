import {
  endPlace,
  hasRoom,
  type Lane,
  type LaneKeys,
  type LaneSettings,
  type LaneTicket,
  newLane,
  nextRoom,
  senderLane,
  takePlace,
  type Waiter,
} from './lane.js';
import { WakeHeap } from './wake-heap.js';
import { type GateClock, WakeTimer } from './wake-timer.js';

// What the call layer and the fleet import from here, wherever it is defined.
export type { LaneKeys, LaneSettings, LaneTicket } from './lane.js';
export { senderLane } from './lane.js';

/**
 * Per-sender lanes and per-recipient pacing for one client's sends, with one timer for all of them.
 *
 * A lane holds a place per send from the moment it is admitted until `windowMs` after its answer
 * (the fleet gate's rule, fleet/gate.ts): a sender's lane (`limit` places, a one-second window)
 * thereby bounds the busiest second of arrivals the service can see, and a recipient's lane (one
 * place, a `minInterval` window) keeps two arrivals to one person at least `minInterval` apart,
 * however long each request takes to arrive.
 *
 * No head-of-line blocking: each lane has its own FIFO, and a send waits in only one at a time.
 * It passes its recipient's lane first and then its sender's: a send that waited for its sender
 * first would hold a place of the sender's (blocking that sender's other recipients) while it
 * waited seconds for its recipient. Holding the recipient's place while it waits for the sender
 * only delays later sends to that same recipient, which could not go sooner anyway.
 *
 * Memory follows the senders and recipients in use: a lane is dropped once it is empty again.
 */
export class Lanes {
  readonly #settings: LaneSettings;
  readonly #clock: GateClock;
  readonly #lanes = new Map<string, Lane>();
  readonly #wakes = new WakeHeap<Lane>();
  readonly #timer: WakeTimer;
  #sweepAt = 64;

  constructor(settings: LaneSettings, clock: GateClock) {
    this.#settings = settings;
    this.#clock = clock;
    this.#timer = new WakeTimer(clock, () => this.#pump());
  }

  /** Whether sends are paced per recipient: their keys then need the canonical phone. */
  get perRecipient(): boolean {
    return this.#settings.perRecipient !== undefined;
  }

  /** Sends waiting for a lane, across every lane. */
  get waiting(): number {
    let count = 0;
    for (const lane of this.#lanes.values()) count += lane.waiters.size;
    return count;
  }

  /**
   * Admits one send: its ticket at once when every lane it passes has room and nobody waits there,
   * else a promise of it, rejected with the signal's reason if the signal aborts first (the places
   * it took on the way are given back).
   */
  admit(
    keys: LaneKeys,
    signal: AbortSignal | undefined,
    onWait?: (waitMs: number, lane: 'per-sender' | 'per-recipient') => void,
  ): LaneTicket | Promise<LaneTicket> {
    // Swept before this send's lanes are looked up: never between two of them.
    if (this.#lanes.size >= this.#sweepAt) this.#sweep();
    const route: Lane[] = [];
    const { perRecipient, perSender } = this.#settings;
    if (perRecipient !== undefined && keys.recipient !== undefined)
      route.push(this.#lane(`r:${keys.recipient}`, 1, perRecipient));
    if (perSender !== undefined && keys.sender !== undefined) {
      const { limit, windowMs } = senderLane(perSender);
      route.push(this.#lane(`s:${keys.sender}`, limit, windowMs));
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.#clock.now();
    const held: Waiter['held'] = [];
    while (route.length > 0 && hasRoom(route[0] as Lane, now, true)) {
      const lane = route.shift() as Lane;
      takePlace(lane);
      held.push(lane);
    }
    if (route.length === 0) return this.#ticket(held);
    if (onWait) {
      // The expected wait: until the lane has room (a window when every place is open), plus a
      // window's share for each send ahead in its line.
      const lane = route[0] as Lane;
      const room = nextRoom(lane, now);
      const ahead = (lane.waiters.size * lane.windowMs) / lane.limit;
      const wait = (room === Number.POSITIVE_INFINITY ? lane.windowMs : room - now) + ahead;
      onWait(wait, lane.key.startsWith('r:') ? 'per-recipient' : 'per-sender');
    }
    return new Promise<LaneTicket>((resolve, reject) => {
      const waiter: Waiter = {
        route,
        held,
        resolve,
        reject,
        signal,
        onAbort: undefined,
        prev: undefined,
        next: undefined,
      };
      for (const lane of route) lane.ahead++;
      if (signal) {
        waiter.onAbort = () => {
          const lane = waiter.route[0] as Lane;
          lane.waiters.remove(waiter);
          for (const left of waiter.route) left.ahead--;
          // Nobody left to wake for: its wake (and the timer, if it was the next) is dropped.
          if (lane.waiters.head === undefined) lane.wakeAt = Number.POSITIVE_INFINITY;
          this.#give(waiter.held);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#enqueue(waiter, now);
    });
  }

  #lane(key: string, limit: number, windowMs: number): Lane {
    let lane = this.#lanes.get(key);
    if (lane === undefined) {
      lane = newLane(key, limit, windowMs);
      this.#lanes.set(key, lane);
    }
    return lane;
  }

  /** The ticket of a send that holds `held`. */
  #ticket(held: Waiter['held']): LaneTicket {
    let done = false;
    return {
      settle: () => {
        if (done) return;
        done = true;
        this.#end(held, this.#clock.now(), true);
      },
      release: () => {
        if (done) return;
        done = true;
        this.#give(held);
      },
    };
  }

  /** Gives back places whose send never went out. */
  #give(held: Waiter['held']): void {
    this.#end(held, this.#clock.now(), false);
  }

  /** Ends each held place: a window from `now` when its send went out, at once when it did not. */
  #end(held: Waiter['held'], now: number, sent: boolean): void {
    for (const lane of held) {
      if (!endPlace(lane, now, sent)) continue;
      if (lane.waiters.head !== undefined) this.#schedule(lane, sent ? now + lane.windowMs : now);
    }
    this.#pump();
  }

  /** Puts a waiter in the FIFO of the next lane on its route, and makes sure that lane is looked at. */
  #enqueue(waiter: Waiter, now: number): void {
    const lane = waiter.route[0] as Lane;
    lane.waiters.push(waiter);
    this.#schedule(lane, nextRoom(lane, now));
    this.#pump();
  }

  #schedule(lane: Lane, at: number): void {
    if (at === Number.POSITIVE_INFINITY || at >= lane.wakeAt) return;
    lane.wakeAt = at;
    this.#wakes.push(at, lane);
  }

  /** Lets through the waiters of every lane whose time has come; then sets the one timer for the next. */
  #pump(): void {
    const now = this.#clock.now();
    for (let top = this.#wakes.peek(); top !== undefined && top.at <= now; top = this.#wakes.peek()) {
      this.#wakes.pop();
      const lane = top.item;
      if (lane.wakeAt !== top.at) continue; // a stale entry: the lane was scheduled sooner since
      lane.wakeAt = Number.POSITIVE_INFINITY;
      this.#drain(lane, now);
    }
    this.#arm(now);
  }

  /** Moves the waiters at the head of `lane` on while it has room. */
  #drain(lane: Lane, now: number): void {
    for (let waiter = lane.waiters.head; waiter !== undefined; waiter = lane.waiters.head) {
      if (!hasRoom(lane, now, false)) break;
      lane.waiters.remove(waiter);
      waiter.route.shift();
      lane.ahead--;
      takePlace(lane);
      waiter.held.push(lane);
      const next = waiter.route[0];
      if (next === undefined) {
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        waiter.resolve(this.#ticket(waiter.held));
      } else if (next.waiters.head === undefined && hasRoom(next, now, false)) {
        // Straight through the next lane too: looked at again by its own drain below.
        next.waiters.push(waiter);
        this.#drain(next, now);
      } else {
        next.waiters.push(waiter);
        this.#schedule(next, nextRoom(next, now));
      }
    }
    if (lane.waiters.head !== undefined) this.#schedule(lane, nextRoom(lane, now));
  }

  #arm(now: number): void {
    // Stale wakes (a lane scheduled sooner since, or left with nobody to wake) are dropped here.
    for (let top = this.#wakes.peek(); top !== undefined && top.item.wakeAt !== top.at; top = this.#wakes.peek())
      this.#wakes.pop();
    this.#timer.arm(this.#wakes.peek()?.at ?? Number.POSITIVE_INFINITY, now);
  }

  /** Forgets the lanes nobody waits in and whose places all ended. */
  #sweep(): void {
    const now = this.#clock.now();
    for (const [key, lane] of this.#lanes) {
      if (lane.ahead === 0 && lane.ends.every((end) => end <= now)) this.#lanes.delete(key);
    }
    this.#sweepAt = Math.max(64, this.#lanes.size * 2);
  }
}
