/** The longest delay a Node timer can hold; a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

import { UsageError } from './exit-codes.js';
import { quote } from './secrets.js';

const HOUR = 3_600_000;
const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: HOUR };

/**
 * A duration as people write it on a command line: `1500ms`, `60s`, `5m`, `1h`, or a bare number of
 * seconds, up to the longest timer Node keeps (about 596h: the SDK refuses more, in its own
 * words, and a longer sleep would fire at once). Throws a `UsageError` naming the option otherwise.
 *
 * @example
 * ```ts
 * parseDuration('5m', '--timeout') // 300000
 * ```
 */
export function parseDuration(text: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  // Whole milliseconds, at least one: '0.1ms' would be a timer of 0.
  const ms = match ? Math.round(Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1000)) : Number.NaN;
  if (match && !(ms >= 1)) throw new UsageError(`${option} must be at least 1ms, got ${quote(text)}`);
  if (!(ms >= 1)) throw new UsageError(`${option} must look like 1500ms, 60s, 5m or 1h, got ${quote(text)}`);
  if (ms > MAX_TIMER_MS) {
    throw new UsageError(`${option} must be at most ${Math.floor(MAX_TIMER_MS / HOUR)}h, got ${quote(text)}`);
  }
  return ms;
}

/**
 * A positive whole number given to `option` (a flag, or an argument in words: `the log id`), in
 * digits (no `1e3`, `0x10` or `2.0`), and one a JavaScript number holds exactly. The commands'
 * and the sandbox's (`--sender-limit`, `--pair-interval`) one check.
 *
 * @example
 * ```ts
 * parseCount('50', '--limit') // 50
 * ```
 */
export function parseCount(text: string, option: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`${option} must be a whole number >= 1, got ${quote(text)}`);
  return n;
}

/**
 * A TCP port as an operator writes it: decimal digits only, 0 (a free port) to 65535. `Number()`
 * alone would read `0x50` as 80 and `1e3` as 1000, and listen where nobody asked.
 *
 * @example
 * ```ts
 * parsePort('8080', '--port') // 8080
 * ```
 */
export function parsePort(text: string, option: string): number {
  const n = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 0 && n <= 65_535))
    throw new UsageError(
      `${option} must be a port number from 0 to 65535 in decimal digits (0: a free port), got ${quote(text)}`,
    );
  return n;
}
