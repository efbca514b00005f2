/**
 * The simulated hour under vitest's default fake timers (`vi.useFakeTimers()`: every timer,
 * `Date` and `performance` faked), advanced with `vi.advanceTimersByTimeAsync`.
 */
import { MessagingClient } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterEach, expect, it, vi } from 'vitest';
import { MINUTE, simulatedHour } from '../../helpers/simulated-hour.cjs';

// Read before any fake is installed: the real clock, for the real-time figure.
afterEach(() => vi.useRealTimers());

it('one hour of traffic follows the fake clock, request by request', async () => {
  vi.useFakeTimers();
  const hour = await simulatedHour({
    MessagingClient,
    createSandbox,
    SANDBOX_PHONES,
    advance: (ms) => vi.advanceTimersByTimeAsync(ms),
    step: MINUTE,
  });
  expect(hour.fakeMinutes).toBe(60);
});
