import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { ValidationError } from '../errors.js';
import { DeadlineExceededError } from './transport.js';

/** undici's header record type (its own module for it is not in undici's exports map). */
type IncomingHttpHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>[1];

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
  /** When the deadline passes, on `performance.now()`'s clock. */
  readonly #due: number;
  #controller: Dispatcher.DispatchController | undefined;
  #expired: DeadlineExceededError | undefined;
  #onExpire: ((error: DeadlineExceededError) => void) | undefined;

  constructor(timeout: number) {
    this.#timeout = timeout;
    this.#due = performance.now() + timeout;
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
    if (performance.now() < this.#due - 1) return false;
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

function redirectRefused(from: unknown): ValidationError {
  return new ValidationError(
    'The dispatcher option followed a redirect',
    [
      {
        path: 'dispatcher',
        message: `it followed a redirect from ${from instanceof URL ? from.origin : String(from)} although the SDK asked for none (maxRedirections: 0). The SDK stopped it before anything was sent to the new address, so your API key only goes to the base URL's origin. Pass a dispatcher that does not follow redirects.`,
      },
    ],
    { mayHaveBeenSent: true },
  );
}

/** The dispatch option under which a request carries its `Deadline` to the interceptor. */
export const DEADLINE = Symbol('tenant-messaging.deadline');

/**
 * A handler that hands undici's controller to the request's `Deadline` and clears it when the
 * response ends or fails; everything else passes through to the wrapped handler.
 */
class DeadlineHandler implements Dispatcher.DispatchHandler {
  readonly #inner: Dispatcher.DispatchHandler;
  readonly #deadline: Deadline;

  constructor(inner: Dispatcher.DispatchHandler, deadline: Deadline) {
    this.#inner = inner;
    this.#deadline = deadline;
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    // undici's redirect handler starts each hop through this handler with the URLs already
    // visited in `context.history`. The SDK asks for no redirects (maxRedirections: 0); a
    // dispatcher that follows one anyway is stopped here, before the hop's request is written,
    // so X-Api-Key never reaches the Location's origin.
    const history = (context as { history?: readonly unknown[] } | null | undefined)?.history;
    if (history !== undefined && history.length > 0) {
      controller.abort(redirectRefused(history[0]));
      return;
    }
    this.#deadline.attach(controller);
    this.#inner.onRequestStart?.(controller, context);
  }

  // Explicit parameters rather than rest arguments: these run for every chunk of every response,
  // and a rest parameter allocates an array per call.
  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.#inner.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    this.#inner.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.#deadline.clear();
    this.#inner.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#deadline.clear();
    this.#inner.onResponseError?.(controller, error);
  }

  onBodySent(chunk: Buffer): void {
    this.#inner.onBodySent?.(chunk);
  }

  onRequestSent(): void {
    this.#inner.onRequestSent?.();
  }
}

/** The interceptor that connects each request's `Deadline` (from its dispatch options) to undici. */
export const deadlineInterceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) => {
  const deadline = (options as { [DEADLINE]?: Deadline })[DEADLINE];
  return dispatch(options, deadline ? new DeadlineHandler(handler, deadline) : handler);
};
