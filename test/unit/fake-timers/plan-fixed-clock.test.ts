/**
 * The fleet's scheduling decision (when a queued send may go: its `sendAt`, pushed past its quiet
 * hours) is a pure function of the `now` it is given: exact across New York's daylight-saving
 * changes with fixed instants, and the same whatever the process's clock says meanwhile.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { planSend } from '../../../src/bullmq/schedule/plan.js';
import type { StoredParams } from '../../../src/bullmq/send/params.js';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const params = { sender_phone: '+15550001001', to_phone: '+12125550123', type: 'text', content: 'Hi' } as StoredParams;
const night = { start: '21:00', end: '08:00', timeZone: 'America/New_York' };
const plan = (now: string, sendAt?: string) =>
  planSend(params, { sendAt: sendAt === undefined ? undefined : at(sendAt), quietHours: night }, at(now));

afterEach(() => vi.useRealTimers());

describe('planSend across daylight-saving changes, with fixed clocks', () => {
  it('09:00 the morning the clocks spring forward is 13:00 UTC, 12 hours after 20:00 the evening before', async () => {
    expect(await plan('2026-03-08T01:00:00Z', '2026-03-08T13:00:00Z')).toEqual({
      delay: 12 * HOUR,
      quiet: { startMinute: 21 * 60, endMinute: 8 * 60, zones: ['America/New_York'] },
      announce: { status: 'scheduled', until: at('2026-03-08T13:00:00Z') },
    });
  });

  it('a send due in the night of the change waits for 08:00 of the new offset (12:00 UTC)', async () => {
    const planned = await plan('2026-03-08T01:00:00Z', '2026-03-08T07:30:00Z');
    expect(planned.announce).toEqual({ status: 'quiet-hours', until: at('2026-03-08T12:00:00Z') });
    expect(planned.delay).toBe(11 * HOUR);
  });

  it('in the repeated hour of the fall back, a send due now waits for 08:00 of the old offset (13:00 UTC)', async () => {
    const planned = await plan('2026-11-01T05:30:00Z'); // 01:30, the first time
    expect(planned.announce).toEqual({ status: 'quiet-hours', until: at('2026-11-01T13:00:00Z') });
    expect(planned.delay).toBe(7.5 * HOUR);
  });

  it('reads no clock of its own: a fake Date anywhere else changes nothing', async () => {
    const real = await plan('2026-03-08T01:00:00Z', '2026-03-08T07:30:00Z');
    vi.useFakeTimers({ now: at('2031-07-01T12:00:00Z') });
    expect(await plan('2026-03-08T01:00:00Z', '2026-03-08T07:30:00Z')).toEqual(real);
  });
});
