import { APIError, retryAfterMs } from '../../api-error.js';
import type { Route } from '../../internal/requests/route.js';
import { runtimeClock } from '../../internal/waiting/clock.js';
import { Fifo, type FifoNode } from '../../internal/waiting/fifo.js';
import { publishRateLimited } from '../channels.js';
import {
  initialRateState,
  isFree,
  nextStart,
  onAnswer,
  onStart,
  type RateAnswer,
  type RateSettings,
  type RateState,
} from './rate-policy.js';
import { type GateClock, WakeTimer } from './wake-timer.js';

/** A call waiting at the gate: a node of its FIFO. */
interface Waiter extends FifoNode<Waiter> {
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * One gate for every request of a client (and of its `withOptions` children that share its
 * pool): each attempt passes it before it reaches the transport, and each answer is reported back
 * to it. The policy (rate-policy.ts) says when the next start may be; the gate keeps the
 * waiting calls in one FIFO with one timer.
 *
 * The fast path: with no fixed rate, no pause and no rate headers seen, `admit` is a flag check
 * and a counter: no allocation, no promise, no clock read.
 */
export class RateGate {
  #state: RateState;
  #free: boolean;
  readonly #clock: GateClock;
  readonly #waiters = new Fifo<Waiter>();
  #inFlight = 0;
  readonly #timer: WakeTimer;

  constructor(settings: RateSettings, clock: GateClock = runtimeClock) {
    this.#state = initialRateState(settings);
    this.#clock = clock;
    this.#timer = new WakeTimer(clock, () => this.#pump());
    this.#free = isFree(this.#state, Number.NEGATIVE_INFINITY);
  }

  /** Calls waiting at the gate. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /**
   * Lets one attempt start: `undefined` when it may start at once (the caller goes on
   * synchronously), else a promise that resolves when it may, or rejects with the signal's reason
   * as soon as the signal aborts (its place is given up, its listener removed).
   */
  admit(signal: AbortSignal | undefined, route: Route): Promise<void> | undefined {
    if (this.#free) {
      this.#inFlight++;
      return undefined;
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.#clock.now();
    const { at, source } = nextStart(this.#state, now);
    if (this.#waiters.head === undefined && at <= now) {
      this.#start(now);
      return undefined;
    }
    const spacing = this.#state.settings.spacingMs ?? 0;
    publishRateLimited(route, Math.max(0, at - now) + this.#waiters.size * spacing, source);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined, prev: undefined, next: undefined };
      if (signal) {
        waiter.onAbort = () => {
          this.#remove(waiter);
          reject(signal.reason);
          this.#pump();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiters.push(waiter);
      this.#pump();
    });
  }

  /**
   * Reports the end of an attempt admitted by `admit`: its status and headers, or `0` and
   * `undefined` when it got no answer.
   */
  settle(status: number, headers: Readonly<Record<string, string>> | undefined): void {
    this.#inFlight--;
    if (!this.#state.settings.adaptive || headers === undefined) return;
    if (status !== 429 && headers['x-ratelimit-remaining'] === undefined) return;
    const hasRetryAfter = headers['retry-after'] !== undefined;
    const answer: RateAnswer = {
      status,
      limit: count(headers['x-ratelimit-limit']),
      remaining: count(headers['x-ratelimit-remaining']),
      waitMs: status === 429 ? retryAfterMs(headers, this.#clock.wall()) : undefined,
      waitSource: hasRetryAfter ? 'retry-after' : 'x-ratelimit-reset',
    };
    const now = this.#clock.now();
    this.#state = onAnswer(this.#state, answer, now, this.#inFlight);
    this.#free = this.#waiters.head === undefined && isFree(this.#state, now);
    if (this.#waiters.head) this.#pump();
  }

  /**
   * True when the gate already holds every request for as long as this failure asks to wait (a
   * 429 with a usable `Retry-After` or `X-RateLimit-Reset`, seen by `settle`): the retry then waits
   * at the gate only, not once in the retry policy and again here.
   */
  absorbs(error: unknown): boolean {
    // A pause already over (`Retry-After: 0`) holds nothing: the retry policy's own (tiny) delay applies.
    return (
      this.#state.settings.adaptive &&
      error instanceof APIError &&
      error.status === 429 &&
      error.retryAfter !== undefined &&
      this.#state.pausedUntil > this.#clock.now()
    );
  }

  #start(now: number): void {
    this.#state = onStart(this.#state, now);
    this.#inFlight++;
    this.#free = this.#waiters.head === undefined && isFree(this.#state, now);
  }

  /** Lets through every waiter whose time has come, in order; then sets the one timer for the next. */
  #pump(): void {
    const now = this.#clock.now();
    let at = Number.POSITIVE_INFINITY;
    for (let head = this.#waiters.head; head !== undefined; head = this.#waiters.head) {
      at = nextStart(this.#state, now).at;
      if (at > now) break;
      this.#remove(head);
      this.#start(now);
      head.resolve();
      at = Number.POSITIVE_INFINITY;
    }
    this.#timer.arm(at, now);
  }

  /** Takes a waiter out of the FIFO and drops its abort listener. */
  #remove(waiter: Waiter): void {
    this.#waiters.remove(waiter);
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
  }
}

/** A header's value as a count, or undefined when absent or not a plain non-negative integer. */
function count(value: string | undefined): number | undefined {
  const text = value?.trim();
  return text && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}
