/**
 * Stopping without losing answers: once a stop signal comes, no new call is run, the calls in
 * flight finish (a send is never cut), and each gets its result; a call still running when the
 * grace period ends is answered with what is known of it, so the process can exit within a bound.
 */

/**
 * How long calls in flight may take to finish once a stop signal came: with the sending of their
 * results, under the 10 s a container runtime gives before SIGKILL (`docker stop`; exit.ts).
 *
 * @default 7_000
 * @example
 * ```ts
 * await drain.stop(STOP_GRACE_MS)
 * ```
 */
export const STOP_GRACE_MS = 7_000;

/**
 * The calls in flight of one server process.
 *
 * @example
 * ```ts
 * const drain = new Drain()
 * const result = await drain.run(() => tool.run(args), () => failure('stopped before it finished'))
 * ```
 */
export class Drain {
  readonly #stopping = new AbortController();
  readonly #inFlight = new Set<Promise<unknown>>();
  // One per call in flight, removed when its work settles: a long-lived server keeps no result.
  readonly #cuts = new Set<() => void>();

  /** Aborted once a stop began: what waits on a person or polls (a confirmation, a wait) ends on it. */
  get signal(): AbortSignal {
    return this.#stopping.signal;
  }

  /** True once a stop began: no new call is run. */
  get stopping(): boolean {
    return this.#stopping.signal.aborted;
  }

  /** True for an error the stop caused: its signal's reason, or an abort once the stop began. */
  causedBy(error: unknown): boolean {
    if (!this.stopping) return false;
    return error === this.signal.reason || (error instanceof Error && error.name === 'AbortError');
  }

  /**
   * Runs `work`, counted in flight; if the grace period of a stop ends first, answers `cut()` instead
   * (the work goes on, but the process will not wait for it).
   */
  run<T>(work: () => Promise<T>, cut: () => T): Promise<T> {
    let cutNow: () => void = () => {};
    const answered = Promise.race([
      work(),
      new Promise<T>((resolve, reject) => {
        cutNow = () => {
          try {
            resolve(cut());
          } catch (error) {
            reject(error);
          }
        };
      }),
    ]);
    this.#cuts.add(cutNow);
    const tracked = answered
      .finally(() => {
        this.#inFlight.delete(tracked);
        this.#cuts.delete(cutNow);
      })
      .catch(() => {});
    this.#inFlight.add(tracked);
    return answered;
  }

  /**
   * Calls in flight: each keeps its cut only until its work settles, so nothing of an answered call is held.
   *
   * @example
   * ```ts
   * await drain.run(() => tool.run(args), cut); drain.inFlight // 0
   * ```
   */
  get inFlight(): number {
    return this.#cuts.size;
  }

  /**
   * Stops: no new call from now on, then waits for the calls in flight, at most `graceMs`;
   * those still running then are answered with their `cut()`.
   */
  async stop(graceMs: number = STOP_GRACE_MS): Promise<void> {
    this.#stopping.abort(new Error('The server is stopping'));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.allSettled([...this.#inFlight]), grace]);
    clearTimeout(timer);
    for (const cutNow of [...this.#cuts]) cutNow();
    await Promise.allSettled([...this.#inFlight]);
  }
}
