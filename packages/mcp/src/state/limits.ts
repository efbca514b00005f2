/**
 * The limits of one server process: how long `wait_for_delivery` may hold a call, and
 * `--max-sends`, the sends it may make in its life.
 */

/**
 * `wait_for_delivery`'s `timeout`, in ms: a tool call that waits longer than a few minutes ties up
 * the agent (and the client's own request timeout); the model calls again to wait longer.
 *
 * @example
 * ```ts
 * Math.min(asked, WAIT_TIMEOUT.max)
 * ```
 */
export const WAIT_TIMEOUT = Object.freeze({ min: 1_000, default: 60_000, max: 600_000 });

/**
 * `--max-sends`: the sends one server process may make. A send counts from the moment it starts
 * (two at once cannot both take the last one), and is given back only when it certainly did not
 * go out (the API refused it, or it never left): an outcome that is unknown counts, since the
 * message may have been sent.
 *
 * @example
 * ```ts
 * const budget = new SendBudget(5)
 * if (!budget.reserve()) return refusal
 * ```
 */
export class SendBudget {
  readonly #max: number | undefined;
  #used = 0;

  /** @param max the sends allowed, or undefined for no cap (the default of the command). */
  constructor(max: number | undefined) {
    this.#max = max;
  }

  /** The cap, or undefined when there is none. */
  get max(): number | undefined {
    return this.#max;
  }

  /** Sends still allowed, or undefined when there is no cap. */
  get left(): number | undefined {
    return this.#max === undefined ? undefined : Math.max(0, this.#max - this.#used);
  }

  /** Takes one send; false when the cap is reached. */
  reserve(): boolean {
    if (this.#max !== undefined && this.#used >= this.#max) return false;
    this.#used++;
    return true;
  }

  /** Gives back a send that certainly did not go out. */
  release(): void {
    if (this.#used > 0) this.#used--;
  }
}
