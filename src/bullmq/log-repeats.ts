/**
 * Errors that can come many times a second (a datastore that refuses every call, a connection that
 * keeps failing) are logged once per kind, with a count: the first at once, the same kind again
 * within the window is counted, and the count is logged as one line when the window ends. A kind
 * is the error's first line with its numbers blurred (ports, ids and durations vary).
 */

import type { Logger } from '../index.js';

const WINDOW_MS = 10_000;

/** Logs one line per kind of error per window (see above) with `logger.error`, when there is one. */
export function logRepeats(logger: Logger | undefined, message: string, windowMs = WINDOW_MS): (error: string) => void {
  const counts = new Map<string, number>();
  // Looked up at each use: a logger given without `error` (plain JavaScript) logs nothing, never throws.
  const log = (text: string, fields: Record<string, unknown>) => {
    if (typeof logger?.error === 'function') logger.error(text, fields);
  };
  return (error) => {
    if (!logger) return;
    const kind = (error.split('\n')[0] ?? '').replace(/\d+/g, '#').slice(0, 300);
    const count = counts.get(kind);
    if (count !== undefined) {
      counts.set(kind, count + 1);
      return;
    }
    log(message, { error });
    counts.set(kind, 0);
    // Unref'd: a pending count never keeps the process alive.
    setTimeout(() => {
      const repeated = counts.get(kind) ?? 0;
      counts.delete(kind);
      if (repeated > 0) log(message, { error: kind, repeated, withinMs: windowMs });
    }, windowMs).unref();
  };
}
