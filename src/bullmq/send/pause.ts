/**
 * How long a 429 pauses the whole queue. The pause lives in the datastore (every worker waits it
 * out, a restart does not clear it), so a hostile or mistaken `Retry-After` (a day, the year 9999)
 * must not stop the fleet for that long: it is capped as the client caps the same header
 * (`maxRetryAfterMs`, 60 s). After a capped pause the next request asks the service again; a
 * service still limiting answers 429 once more, so the pause outlives its cause by at most the cap.
 */

/** The longest pause a 429 sets (ms): the client's own cap on `Retry-After`. */
export const MAX_PAUSE_MS = 60_000;

/** The pause when the 429 says nothing usable (ms). */
export const DEFAULT_PAUSE_MS = 1_000;

/** The pause for a 429 whose `Retry-After` asked `retryAfter` ms (undefined: not said). */
export function pauseOf(retryAfter: number | undefined): { readonly ms: number; readonly capped: boolean } {
  if (retryAfter === undefined || Number.isNaN(retryAfter)) return { ms: DEFAULT_PAUSE_MS, capped: false };
  if (retryAfter > MAX_PAUSE_MS) return { ms: MAX_PAUSE_MS, capped: true };
  // A date in the past, or 0: the smallest pause BullMQ keeps.
  return { ms: Math.max(1, Math.ceil(retryAfter)), capped: false };
}
