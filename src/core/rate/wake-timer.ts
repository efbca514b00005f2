import { MAX_TIMER_MS } from '../../internal/values/checks.js';
import type { WaitClock } from '../../internal/waiting/clock.js';

/** Time for the rate gate and the lanes: injectable so their tests need no real waits. */
export type GateClock = WaitClock;

/**
 * The one timer of a waiting line (the rate gate's, the lanes'): set for the next moment anything
 * may move, moved only when that moment changes, and fired into `wake`.
 *
 * A timer may fire a little early on the monotonic clock, and a delay longer than a timer holds
 * would fire at once: `wake` then finds nothing due, and arms it again for the rest.
 *
 * @example
 * const timer = new WakeTimer(clock, () => pump()); timer.arm(nextAt, clock.now())
 */
export class WakeTimer {
  readonly #clock: GateClock;
  readonly #wake: () => void;
  #handle: unknown;
  #at = Number.POSITIVE_INFINITY;

  constructor(clock: GateClock, wake: () => void) {
    this.#clock = clock;
    this.#wake = wake;
  }

  /** Sets the timer for `at` (`Infinity`: none), unless it is set for that moment already. */
  arm(at: number, now: number): void {
    if (at === this.#at) return;
    if (this.#handle !== undefined) this.#clock.clearTimeout(this.#handle);
    this.#handle = undefined;
    this.#at = at;
    if (at === Number.POSITIVE_INFINITY) return;
    this.#handle = this.#clock.setTimeout(
      () => {
        this.#handle = undefined;
        this.#at = Number.POSITIVE_INFINITY;
        this.#wake();
      },
      Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(at - now))),
    );
  }
}
