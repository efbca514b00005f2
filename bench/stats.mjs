/** Small statistics helpers shared by the bench sections. */

/** @param {number[]} values */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? /** @type {number} */ (sorted[mid])
    : /** @type {number} */ (sorted[mid - 1] + /** @type {number} */ (sorted[mid])) / 2;
}

/**
 * The most events in any half-open window [t, t + windowMs) of sorted timestamps.
 * @param {ArrayLike<number>} sortedTimes
 * @param {number} windowMs
 */
export function maxInWindow(sortedTimes, windowMs) {
  let best = 0;
  let start = 0;
  for (let end = 0; end < sortedTimes.length; end++) {
    while (/** @type {number} */ (sortedTimes[end]) - /** @type {number} */ (sortedTimes[start]) >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/**
 * Rounds to `digits` decimals (for results.json: figures, not float noise).
 * @param {number} value
 * @param {number} [digits]
 */
export function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
