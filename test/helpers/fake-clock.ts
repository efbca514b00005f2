import { vi } from 'vitest';

/**
 * The fake clock's time in ms: what `Date.now()` reads under `vi.useFakeTimers()`, spelt so the
 * unit tier, which reads no real clock (lint/unit-tier.grit), can say which clock it means.
 *
 * @example
 * ```ts
 * vi.useFakeTimers();
 * const started = fakeNow();
 * ```
 */
export function fakeNow(): number {
  const now = vi.getMockedSystemTime();
  if (now === null) throw new Error('fakeNow() reads the fake clock: call vi.useFakeTimers() first');
  return now.getTime();
}
