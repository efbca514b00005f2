/**
 * The waits the simulated hour does not reach, under the timers-and-`Date` subset of
 * `@sinonjs/fake-timers` (`performance` real, as under node:test): a call's deadline, the rate
 * gate's fixed rate, and the SDK's clock itself, which never goes back whatever `Date` does.
 */
import { type Clock, install } from '@sinonjs/fake-timers';
import fc from 'fast-check';
import { APITimeoutError, MessagingClient } from 'tenant-messaging';
import { createSandbox } from 'tenant-messaging/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { monotonicNow } from '../../../src/internal/waiting/clock.js';
import { wholeTurn } from '../../../src/internal/waiting/whole-turn.js';
import { settle } from '../../helpers/simulated-hour.cjs';

const TIMERS_AND_DATE = [
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
  'Date',
] as const;
let clock: Clock | undefined;
afterEach(() => {
  clock?.uninstall();
  clock = undefined;
});

function fakeClient(options: Record<string, unknown> = {}) {
  clock = install({ toFake: [...TIMERS_AND_DATE], now: Date.parse('2026-11-28T09:00:00Z') });
  const sandbox = createSandbox();
  const { baseUrl, keys } = sandbox.tenants.acme;
  return {
    sandbox,
    fake: clock,
    client: new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch, ...options }),
  };
}

describe('under the timers and Date of @sinonjs/fake-timers', () => {
  it("a call's deadline passes at its fake time, not before", async () => {
    const { sandbox, fake, client } = fakeClient({ timeout: 30_000, maxRetries: 0 });
    sandbox.faults.add({ kind: 'latency', latencyMs: 120_000, route: 'GET /me', times: 1 });
    const settled = client.me().then(
      () => 'answered',
      (error: unknown) => error,
    );
    await fake.tickAsync(29_999);
    expect(sandbox.counters.requests['GET /me']).toBe(1);
    await fake.tickAsync(1);
    expect(await settled).toBeInstanceOf(APITimeoutError);
  });

  it('the rate gate spaces requests by its fixed rate in fake time', async () => {
    const { sandbox, fake, client } = fakeClient({ rateLimit: { requestsPerSecond: 0.5 } });
    const calls = Promise.all([client.me(), client.me(), client.me()]);
    await fake.tickAsync(4_000);
    await calls;
    const times = sandbox.requestLog.acceptedAt();
    expect(times.map((at) => at - (times[0] as number))).toEqual([0, 2_000, 4_000]);
  });
});

describe('sendMany and trackDeliveries under the timers and Date of @sinonjs/fake-timers', () => {
  it('a batch paced a minute per person, tracked until read, moves with the fake clock', async () => {
    const { sandbox, fake, client } = fakeClient({ rateLimit: { perRecipient: { minInterval: 60_000 } } });
    const to = '+15551230001';
    const rows = [1, 2, 3].map((n) => ({
      sender_phone: '+15550001001',
      to_phone: to,
      type: 'text' as const,
      content: `Part ${n}`,
    }));
    const ids: number[] = [];
    const updates: string[] = [];
    const run = (async () => {
      for await (const result of client.messages.sendMany(rows)) if (result.status === 'sent') ids.push(result.log.id);
      for await (const update of client.trackDeliveries(ids, { until: 'read', interval: 1_000, timeout: 60_000 })) {
        updates.push(`${update.id}:${update.status}`);
      }
    })();
    await settle(run, (ms) => fake.tickAsync(ms), 1_000);
    const sends = sandbox.requestLog.acceptedAt({ recipient: to });
    expect(sends.map((at) => at - (sends[0] as number))).toEqual([0, 60_000, 120_000]);
    // The sandbox reads every message 900 ms after its send: each id is seen as read once.
    expect(updates.filter((update) => update.endsWith(':read')).sort()).toEqual(ids.map((id) => `${id}:read`).sort());
  });
});

describe('a yield to the event loop is not a wait', () => {
  it('wholeTurn (a large upload, a long trackDeliveries) goes on under fake immediates, with no advance', async () => {
    const [realTimeout, realClear] = [setTimeout, clearTimeout];
    clock = install({ toFake: [...TIMERS_AND_DATE] });
    let guard: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise((resolve) => {
      guard = realTimeout(() => resolve('held by the fake setImmediate'), 2_000);
    });
    try {
      expect(await Promise.race([wholeTurn().then(() => 'went on'), hung])).toBe('went on');
    } finally {
      // A real timer: left, it would outlive this file in the worker the files share.
      realClear(guard);
    }
  });
});

describe("the SDK's clock", () => {
  it('follows Date forward, never back: each reading adds what Date moved forward since the last', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -86_400_000, max: 86_400_000 }), { maxLength: 30 }), (moves) => {
        clock = install({ toFake: ['Date'], now: Date.parse('2026-11-28T09:00:00Z') });
        try {
          let last = monotonicNow();
          for (const move of moves) {
            clock.setSystemTime(clock.now + move);
            const reading = monotonicNow();
            expect(reading - last).toBe(Math.max(0, move));
            last = reading;
          }
        } finally {
          clock.uninstall();
          clock = undefined;
        }
      }),
    );
  });
});
