/** Measures over request arrival times (ms), as the tests of the rate gate and the lanes take them. */

/** The most arrivals in any half-open window of `ms`. */
export function busiest(times: readonly number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[i] as number) - (sorted[j] as number) >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** The smallest gap between two arrivals, Infinity for fewer than two. */
export function smallestGap(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let gap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < sorted.length; i++) gap = Math.min(gap, (sorted[i] as number) - (sorted[i - 1] as number));
  return gap;
}
