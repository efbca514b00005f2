/**
 * What a relay's close() must give back, counted in this test process: its sockets and its
 * timers (each test file runs in a process of its own, so other files' handles never count).
 */
import { expect } from 'vitest';
import { until } from '../fixture.js';

export interface Handles {
  sockets: number;
  timers: number;
}

/** Sockets and timers this process holds, by kind. */
export function handles(): Handles {
  const info = process.getActiveResourcesInfo();
  return {
    sockets: info.filter((kind) => kind === 'TCPSocketWrap' || kind === 'TCPWRAP').length,
    timers: info.filter((kind) => kind === 'Timeout').length,
  };
}

/**
 * How long the timers of BullMQ and ioredis may outlive close() (see expectNoneLeft): a hang
 * detector, well past their own times (5 s and 1 s) so that a loaded machine firing them late
 * passes; a timer that re-arms itself (a reconnection loop) never goes, and fails.
 */
const LAST_TIMER_MS = 20_000;

/**
 * Expects this process to hold no more sockets than `before` once close() settled (a destroyed
 * socket's handle goes within a few turns), and no more timers within `LAST_TIMER_MS`: BullMQ's
 * watchdog of a blocking read the relay abandoned (its block time, 5 s, and 1 s) and ioredis's
 * guard of a socket it ended go by themselves; nothing reconnects. Both are waited for as
 * conditions, polled; the bounds only stop a wait that would never end.
 */
export async function expectNoneLeft(before: Handles): Promise<void> {
  const settled = (limit: number, done: (now: Handles) => boolean) =>
    until(
      () => done(handles()),
      limit,
      () => JSON.stringify({ before, now: handles() }),
    ).then(
      () => true,
      () => false,
    );
  expect(await settled(5_000, (now) => now.sockets <= before.sockets), 'sockets left open').toBe(true);
  expect(await settled(LAST_TIMER_MS, (now) => now.timers <= before.timers), 'timers left running').toBe(true);
}
