import { UsageError } from './exit-codes.js';

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration as people write it on a command line: `1500ms`, `60s`, `5m`, `1h`, or a bare number of
 * seconds. Throws a `UsageError` naming the option otherwise.
 *
 * @example
 * ```ts
 * parseDuration('5m', '--timeout') // 300000
 * ```
 */
export function parseDuration(text: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const ms = match ? Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1000) : Number.NaN;
  if (!(ms > 0) || !Number.isFinite(ms)) {
    throw new UsageError(`${option} must look like 1500ms, 60s, 5m or 1h, got '${text}'`);
  }
  return Math.round(ms);
}

/**
 * A positive whole number given to `option`.
 *
 * @example
 * ```ts
 * parseCount('50', '--limit') // 50
 * ```
 */
export function parseCount(text: string, option: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${option} must be a whole number >= 1, got '${text}'`);
  return n;
}
