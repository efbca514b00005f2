/**
 * The simulated hour under jest's default fake timers (`jest.useFakeTimers()`: every timer,
 * `Date` and `performance`, `process.nextTick` and `queueMicrotask` too). Run by runners.test.ts:
 * jest on this file, the package required by its name from the CommonJS build.
 */
const { MessagingClient } = require('tenant-messaging');
const { createSandbox, SANDBOX_PHONES } = require('tenant-messaging/sandbox');
const { MINUTE, simulatedHour } = require('../../helpers/simulated-hour.cjs');

afterEach(() => jest.useRealTimers());

test('one hour of traffic follows jest fake timers, request by request', async () => {
  jest.useFakeTimers();
  const hour = await simulatedHour({
    MessagingClient,
    createSandbox,
    SANDBOX_PHONES,
    advance: (ms) => jest.advanceTimersByTimeAsync(ms),
    step: MINUTE,
  });
  process.stdout.write(`jest fake timers: ${JSON.stringify(hour)}\n`);
  expect(hour.fakeMinutes).toBe(60);
});
