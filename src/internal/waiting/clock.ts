/**
 * The one clock every wait of the SDK measures with (the poll scheduler, the rate gate, the
 * lanes, a call's deadline), and the timers it waits on.
 *
 * Why `Date.now()` and not `performance.now()`: a wait is a timer, and the time it measures must be
 * the time its timer runs on. Every runner's fake timers fake `Date` with the timers (vitest's and
 * jest's defaults, node:test's `mock.timers`, `@sinonjs/fake-timers` given the timers and `Date`),
 * while `performance` is faked by some only: a timer firing in fake time would read a real
 * `performance.now()`, find nothing due, and arm itself again for ever.
 *
 * Why monotonic: the wall clock may be set back (NTP, a user, a test's `setSystemTime`). A step back
 * is not counted (the clock stands still for that instant, then goes on from where it was), so no
 * wait lasts longer for it. A step forward counts as time gone by: a rate window or a lane interval
 * may end early once (the service's own limit still holds, and its 429 is honoured), a poll may
 * come early; no wait is ever longer.
 *
 * Globals are read at each call, never captured at load: fake timers installed after the SDK was
 * imported are the ones used.
 */

let lastWall: number | undefined;
let reading = 0;

/**
 * Milliseconds on a clock that follows `Date.now()` forward and never goes back. Its zero means
 * nothing: compare two readings, never a reading with a date.
 */
export function monotonicNow(): number {
  const wall = Date.now();
  if (lastWall === undefined) reading = wall;
  else if (wall > lastWall) reading += wall - lastWall;
  lastWall = wall;
  return reading;
}

/** Time and timers for a waiting line; injectable so the lines' own tests are exact. */
export interface WaitClock {
  /** Monotonic ms ({@link monotonicNow}). */
  now(): number;
  /** Wall-clock ms (`Date.now()`), for HTTP dates and Unix reset times. */
  wall(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The runtime's clock and timers, whichever the runtime (or a test runner's fake timers) provides now. */
export const runtimeClock: WaitClock = {
  now: monotonicNow,
  wall: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};
