import type { Issue } from '../../errors.js';
import { describeValue } from './describe-value.js';

/**
 * The known keys of an options interface, as a record the compiler checks against it (as ky does):
 * adding an option to the interface without adding it here is a type error, not a run-time refusal.
 */
export type KnownKeys<T> = { readonly [K in keyof Required<T>]: true };

/**
 * Pushes an issue for every key of `fields` that is not in `known` (a misspelt option would
 * otherwise be ignored silently), suggesting the option it most likely meant (see `closest`).
 * `where` follows "is not an option", e.g. ` of waitForDelivery`.
 */
export function checkKnownKeys(fields: object, known: object, where: string, issues: Issue[]): void {
  for (const key in fields) {
    if (Object.hasOwn(known, key)) continue;
    const names = Object.keys(known);
    const hint = closest(key, names);
    issues.push({
      path: key,
      message: `is not an option${where}${hint ? `; did you mean ${hint}?` : ''} (options: ${names.join(', ')})`,
    });
  }
}

/**
 * The option a misspelt key most likely meant: one differing only in case, else the nearest within
 * two edits (a letter added, dropped, changed or two swapped: `concurency`, `tiemout`), if one.
 */
function closest(key: string, names: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const sameCase = names.find((name) => name.toLowerCase() === lower);
  if (sameCase) return sameCase;
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of names) {
    const distance = editDistance(lower, name.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  const at = (i: number, j: number) => (rows[i] as number[])[j] as number;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = d;
    }
  }
  return at(a.length, b.length);
}

/** The longest delay a Node timer can hold; a longer one would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A positive, finite number of ms that a timer can hold. */
export function isDuration(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMER_MS;
}

/**
 * The checks shared by client, per-call and poll options, each written once: they push an issue
 * for a value given but unusable (`undefined` means "not given" and passes).
 */
export const check = {
  duration(value: unknown, path: string, issues: Issue[]): void {
    if (value !== undefined && !isDuration(value)) {
      issues.push({
        path,
        message: `must be a positive number of ms up to ${MAX_TIMER_MS}, got ${describeValue(value)}`,
      });
    }
  },
  maxRetries(value: unknown, path: string, issues: Issue[]): void {
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 10)) {
      issues.push({ path, message: `must be an integer from 0 to 10, got ${describeValue(value)}` });
    }
  },
  signal(value: unknown, path: string, issues: Issue[]): void {
    if (value !== undefined && !(value instanceof AbortSignal)) {
      issues.push({ path, message: `must be an AbortSignal, got ${describeValue(value)}` });
    }
  },
  callback(value: unknown, path: string, issues: Issue[]): void {
    if (value !== undefined && typeof value !== 'function') {
      issues.push({ path, message: `must be a function, got ${describeValue(value)}` });
    }
  },
  positiveInteger(value: unknown, path: string, issues: Issue[]): void {
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 1)) {
      issues.push({ path, message: `must be an integer >= 1, got ${describeValue(value)}` });
    }
  },
  positiveNumber(value: unknown, path: string, issues: Issue[]): void {
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      issues.push({ path, message: `must be a positive number, got ${describeValue(value)}` });
    }
  },
};
