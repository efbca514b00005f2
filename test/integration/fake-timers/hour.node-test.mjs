/**
 * The simulated hour under node:test's `mock.timers` (setTimeout, setInterval, setImmediate and
 * Date; node:test has no fake `performance`). Run by runners.test.ts: `node --test` on this file,
 * the package imported by its name from the build.
 *
 * node:test's `tick(ms)` runs the timers due synchronously and shows them the clock at the end of
 * the move, so the hour moves one second at a time, letting promises run before each move.
 */
import { mock, test } from 'node:test';
import { MessagingClient } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { simulatedHour } from '../../helpers/simulated-hour.cjs';

const STEP = 1_000;
// Taken before mock.timers replaces them: a real turn of the loop, and the real clock.
const realImmediate = setImmediate;

test('one hour of traffic follows mock.timers, request by request', async () => {
  mock.timers.enable({
    apis: ['setTimeout', 'setInterval', 'setImmediate', 'Date'],
    now: Date.parse('2026-11-28T09:00:00Z'),
  });
  try {
    const hour = await simulatedHour({
      MessagingClient,
      createSandbox,
      SANDBOX_PHONES,
      advance: async (ms) => {
        // Promises first, as vitest's and jest's async advances do: what was started runs at its time.
        for (let moved = 0; moved < ms; moved += STEP) {
          await new Promise((resolve) => realImmediate(resolve));
          mock.timers.tick(Math.min(STEP, ms - moved));
        }
        await new Promise((resolve) => realImmediate(resolve));
      },
      step: STEP,
    });
    console.log(`node:test mock.timers: ${JSON.stringify(hour)}`);
  } finally {
    mock.timers.reset();
  }
});
