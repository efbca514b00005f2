/**
 * The simulated hour under `@sinonjs/fake-timers` given the timers and `Date` only: `performance`
 * stays real, as under node:test's `mock.timers`, so a wait that measured with
 * `performance.now()` would find nothing due and re-arm for ever.
 */
import { type Clock, install } from '@sinonjs/fake-timers';
import { MessagingClient } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterEach, expect, it } from 'vitest';
import { MINUTE, simulatedHour } from '../../helpers/simulated-hour.cjs';

let clock: Clock | undefined;
afterEach(() => clock?.uninstall());

it('one hour of traffic follows the fake clock, request by request, with a real performance.now()', async () => {
  clock = install({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'Date'],
  });
  const hour = await simulatedHour({
    MessagingClient,
    createSandbox,
    SANDBOX_PHONES,
    advance: (ms) => (clock as Clock).tickAsync(ms),
    step: MINUTE,
  });
  expect(hour.fakeMinutes).toBe(60);
});
