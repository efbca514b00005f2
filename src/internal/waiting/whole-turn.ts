/**
 * The runtime's setImmediate as it was when the SDK loaded (if it has one). Why not the global of
 * the moment: this is a yield to the event loop, not a wait, and a test's fake timers installed
 * later would hold it until the test advances them (a large upload, a long `trackDeliveries`).
 */
const loopImmediate = typeof setImmediate === 'function' ? setImmediate : undefined;

/**
 * Resolves once the event loop has gone through a whole turn, timers included: for work that runs
 * as one long chain of promise jobs (a source whose items are all at hand) and must let the rest
 * of the process run now and then.
 *
 * Why two immediates: one is not a whole turn. From an I/O callback (a socket's 'drain', a file
 * read, a response), the loop's very next phase runs immediates, so the chain would go on there
 * before any timer (a call's deadline, a poll) had run. The second immediate runs after the
 * timers phase.
 */
export async function wholeTurn(): Promise<void> {
  const immediate = loopImmediate ?? setImmediate;
  await new Promise((resolve) => immediate(resolve));
  await new Promise((resolve) => immediate(resolve));
}
