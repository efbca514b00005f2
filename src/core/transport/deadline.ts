import type { Dispatcher } from 'undici';
import { monotonicNow } from '../../internal/waiting/clock.js';
import { DeadlineExceededError } from './transport.js';

/**
 * One exchange's deadline for the undici transport. It ends the exchange through undici's own
 * dispatch controller rather than an AbortSignal: passing a signal costs undici an abort
 * listener per request, a measurable share of the SDK's CPU per call (README, Performance).
 *
 * The timer starts when the call starts, so it covers the wait for a free connection too. If it
 * fires while the request is still queued, the caller is answered at once and the request is
 * ended the moment undici starts it.
 */
export class Deadline {
  readonly #timer: NodeJS.Timeout;
  readonly #timeout: number;
  /** When the deadline passes, on `monotonicNow()`'s clock (the one its timer runs on). */
  readonly #due: number;
  #controller: Dispatcher.DispatchController | undefined;
  #expired: DeadlineExceededError | undefined;
  #onExpire: ((error: DeadlineExceededError) => void) | undefined;

  constructor(timeout: number) {
    this.#timeout = timeout;
    this.#due = monotonicNow() + timeout;
    this.#timer = setTimeout(() => this.#expire(), timeout);
  }

  #expire(): void {
    const error = new DeadlineExceededError(this.#timeout);
    this.#expired = error;
    this.#controller?.abort(error);
    this.#onExpire?.(error);
  }

  /**
   * True if the deadline has passed, ending the exchange now if its timer has not fired yet.
   * Asked before a queued call is started: timers that fall due together run in one batch, and a
   * slot freed early in the batch must not start a call whose own timer is about to fire.
   * Within a millisecond counts as passed: Node's timers have millisecond resolution.
   */
  expireIfDue(): boolean {
    if (this.#expired) return true;
    if (monotonicNow() < this.#due - 1) return false;
    clearTimeout(this.#timer);
    this.#expire();
    return true;
  }

  /** True once the deadline has passed. */
  get expired(): boolean {
    return this.#expired !== undefined;
  }

  /** Called with the error when the deadline passes (to answer a caller still waiting). */
  onExpire(listener: (error: DeadlineExceededError) => void): void {
    this.#onExpire = listener;
  }

  /** undici started the request: keep its controller, or end it now if the deadline passed. */
  attach(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#expired) controller.abort(this.#expired);
  }

  /** The exchange is over (answered or failed): the timer must not outlive it. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#onExpire = undefined;
  }
}
