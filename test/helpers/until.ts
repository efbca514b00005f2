/**
 * A wait on a condition for the integration tier, where a real component (a socket, a child
 * process) changes state on its own time: polled, never a fixed sleep. Its bound is a hang
 * detector at the scale of a test's timeout, not a measure.
 */

/**
 * Resolves once `check()` holds, polled every `everyMs`; throws naming `what()` after `timeoutMs`
 * (default 30 s, half the suite's test timeout).
 *
 * @example
 * ```ts
 * await until(() => openHandles().length === 0, () => `still open: ${openHandles()}`);
 * ```
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: () => string,
  { everyMs = 5, timeoutMs = 30_000 }: { everyMs?: number; timeoutMs?: number } = {},
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`not so after ${timeoutMs} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
