import { Fifo, type FifoNode } from '../../internal/waiting/fifo.js';

/** A call waiting for a connection slot: a node of the gate's FIFO. */
export interface GateWaiter extends FifoNode<GateWaiter> {
  /**
   * Called (once) when a slot is offered to this waiter. True: it took the slot and owns it until
   * `release()`. False: its caller no longer waits, and the slot goes to the next waiter.
   */
  readonly grant: () => boolean;
  /** False once granted or removed, so `leave()` twice or after a grant is a no-op. */
  queued: boolean;
}

/**
 * A FIFO semaphore in front of one origin of the client's own undici Agent, sized to the Agent's
 * `connections`. undici cannot drop a request from its queue: a queued request whose caller gave up
 * is still started later, and aborting it then destroys the socket it was given, so a burst of
 * timed-out calls turned into a storm of new connections. Here a call only reaches undici when a
 * socket is free for it, and a waiter whose deadline or signal fires just leaves the FIFO.
 *
 * A free slot costs nothing (`tryAcquire()` is a comparison); only a waiter allocates its node.
 */
export class ConnectionGate {
  readonly #limit: number;
  #active = 0;
  readonly #waiters = new Fifo<GateWaiter>();
  #grantScheduled = false;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** True when nothing holds or waits for a slot (the gate may be forgotten). */
  get idle(): boolean {
    return this.#active === 0 && this.#waiters.head === undefined;
  }

  /** Takes a slot if one is free and nobody waits before us (FIFO: no overtaking). */
  tryAcquire(): boolean {
    if (this.#active >= this.#limit || this.#waiters.head !== undefined) return false;
    this.#active++;
    return true;
  }

  /** Queues a waiter; `grant` is called when a slot is handed to it. */
  enqueue(grant: () => boolean): GateWaiter {
    const waiter: GateWaiter = { grant, prev: undefined, next: undefined, queued: true };
    this.#waiters.push(waiter);
    return waiter;
  }

  /** Removes a waiter that no longer wants a slot (its caller was answered): O(1), no-op if granted. */
  leave(waiter: GateWaiter): void {
    if (!waiter.queued) return;
    waiter.queued = false;
    this.#waiters.remove(waiter);
  }

  /** Gives a slot back. The next waiter gets it on the next turn of the event loop (see #grant). */
  release(): void {
    this.#active--;
    if (this.#waiters.head !== undefined && !this.#grantScheduled) {
      this.#grantScheduled = true;
      // Why not hand the slot over at once: deadlines of a burst expire in one batch of timers, and
      // a running call's expiry releases its slot before the queued calls' timers (due in the
      // same batch) have run. Granting now would start a call whose caller is about to be answered,
      // opening a socket for nobody. setImmediate runs after the batch, when they have left.
      setImmediate(this.#grant);
    }
  }

  readonly #grant = (): void => {
    this.#grantScheduled = false;
    for (let waiter = this.#waiters.head; waiter && this.#active < this.#limit; waiter = this.#waiters.head) {
      this.leave(waiter);
      this.#active++;
      if (!waiter.grant()) this.#active--;
    }
  };
}

/** Gates are forgotten (when idle) once this many origins have one, so a long-lived client stays small. */
const MAX_IDLE_GATES = 64;

/**
 * One `ConnectionGate` per origin, found from the request URL. The last gate used is checked
 * first with `startsWith` (no allocation); other origins cost a slice and a Map lookup.
 */
export class ConnectionGates {
  readonly #limit: number;
  readonly #byPrefix = new Map<string, ConnectionGate>();
  #lastPrefix = '';
  #last: ConnectionGate | undefined;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The gate of the URL's origin. */
  for(url: string): ConnectionGate {
    const last = this.#last;
    if (last !== undefined && url.startsWith(this.#lastPrefix)) return last;
    // `scheme://authority/`: the trailing slash keeps `http://host` from matching `http://host.evil`.
    const end = url.indexOf('/', url.indexOf('//') + 2);
    const prefix = end === -1 ? url : url.slice(0, end + 1);
    let gate = this.#byPrefix.get(prefix);
    if (gate === undefined) {
      if (this.#byPrefix.size >= MAX_IDLE_GATES) this.#forgetIdle();
      gate = new ConnectionGate(this.#limit);
      this.#byPrefix.set(prefix, gate);
    }
    this.#lastPrefix = prefix;
    this.#last = gate;
    return gate;
  }

  #forgetIdle(): void {
    for (const [prefix, gate] of this.#byPrefix) {
      if (gate.idle && gate !== this.#last) this.#byPrefix.delete(prefix);
    }
  }
}
