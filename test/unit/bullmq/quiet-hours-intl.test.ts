/**
 * `quietUntil` held by a property test to a minute-by-minute reading of Intl, in any zone and
 * window: no offset arithmetic of the test's own.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { type QuietWindow, quietUntil } from '../../../src/bullmq/schedule/quiet-hours.js';
import { at, HOUR, MINUTE } from './quiet-hours-helpers.js';

/** Minute of the local day, read through Intl as 'HH:MM' (hour and minute only): no offset arithmetic. */
const referenceFormatters = new Map<string, Intl.DateTimeFormat>();
function referenceMinute(zone: string, instant: number): number {
  let formatter = referenceFormatters.get(zone);
  if (formatter === undefined) {
    const options = { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;
    formatter = new Intl.DateTimeFormat('en-GB', options);
    referenceFormatters.set(zone, formatter);
  }
  const [, hour, minute] = /^(\d\d):(\d\d)$/.exec(formatter.format(instant)) ?? [];
  return Number(hour) * 60 + Number(minute);
}
function referenceQuiet(zone: string, { startMinute, endMinute }: QuietWindow, instant: number): boolean {
  const minute = referenceMinute(zone, instant);
  if (startMinute < endMinute) return startMinute <= minute && minute < endMinute;
  return minute >= startMinute || minute < endMinute;
}

describe('quietUntil, against a minute-by-minute reading of Intl', () => {
  const ZONES = [
    'UTC',
    'America/New_York',
    'America/Los_Angeles',
    'America/Santiago',
    'America/Havana',
    'America/St_Johns',
    'America/Nuuk',
    'Europe/London',
    'Europe/Berlin',
    'Africa/Cairo',
    'Asia/Beirut',
    'Asia/Kolkata',
    'Asia/Kathmandu',
    'Asia/Tokyo',
    'Australia/Adelaide',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'Pacific/Honolulu',
    'Pacific/Kiritimati',
  ];
  // Changes of some of those zones: half the runs start near one, with its zone among theirs.
  const CHANGES: [string, string][] = [
    ['America/New_York', '2026-03-08T07:00Z'],
    ['America/New_York', '2026-11-01T06:00Z'],
    ['America/New_York', '2027-03-14T07:00Z'],
    ['America/New_York', '2027-11-07T06:00Z'],
    ['Europe/London', '2026-03-29T01:00Z'],
    ['Europe/London', '2026-10-25T01:00Z'],
    ['America/Santiago', '2026-04-05T03:00Z'],
    ['America/Santiago', '2026-09-06T04:00Z'],
    ['America/Havana', '2026-03-08T05:00Z'],
    ['America/Havana', '2026-11-01T05:00Z'],
    ['America/Nuuk', '2026-03-29T01:00Z'],
    ['America/Nuuk', '2026-10-25T01:00Z'],
    ['Pacific/Chatham', '2026-04-04T14:00Z'],
    ['Pacific/Chatham', '2026-09-26T14:00Z'],
    ['Australia/Adelaide', '2026-04-04T16:30Z'],
    ['Australia/Adelaide', '2026-10-03T16:30Z'],
    ['Australia/Lord_Howe', '2026-04-04T15:00Z'],
    ['Australia/Lord_Howe', '2026-10-03T15:30Z'],
    ['Asia/Beirut', '2026-03-28T22:00Z'],
    ['Asia/Beirut', '2026-10-24T21:00Z'],
    ['Africa/Cairo', '2026-04-23T22:00Z'],
    ['Africa/Cairo', '2026-10-29T21:00Z'],
  ];
  const minute = fc.oneof(
    fc.integer({ min: 0, max: 1439 }),
    fc.integer({ min: 0, max: 95 }).map((q) => q * 15),
  );
  const others = fc.uniqueArray(fc.constantFrom(...ZONES), { maxLength: 2 });
  const anyday = fc
    .tuple(
      fc.integer({ min: at('2026-01-01T00:00Z'), max: at('2027-12-31T23:59:59.999Z') }),
      fc.uniqueArray(fc.constantFrom(...ZONES), { minLength: 1, maxLength: 3 }),
      minute,
      minute,
    )
    .map(([from, list, startMinute, endMinute]) => ({ from, list, window: { startMinute, endMinute } }));
  // Near a change, with a start or an end close to what the clock shows just before or after it.
  const nearChange = fc
    .tuple(
      fc.constantFrom(...CHANGES),
      fc.oneof(fc.integer({ min: -30 * HOUR, max: 6 * HOUR }), fc.integer({ min: -2 * HOUR, max: 2 * HOUR })),
      others,
      minute,
      fc.integer({ min: -60, max: 60 }),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([[zone, change], shift, rest, other, delta, before, endNear]) => {
      const near = (referenceMinute(zone, at(change) - (before ? 1 : 0)) + delta + 1440) % 1440;
      const window = endNear ? { startMinute: other, endMinute: near } : { startMinute: near, endMinute: other };
      return { from: at(change) + shift, list: [zone, ...rest], window };
    });
  const scene = fc.oneof(anyday, nearChange).filter(({ window }) => window.startMinute !== window.endMinute);

  it('is the earliest instant at or after `at` that is quiet in no zone', () => {
    fc.assert(
      fc.property(scene, ({ from, list, window }) => {
        const quietSomewhere = (t: number) => list.some((zone) => referenceQuiet(zone, window, t));
        const result = quietUntil(from, window, list);
        const last = result ?? from + 48 * HOUR;
        if (result !== undefined) {
          if (result < from || result > from + 48 * HOUR || quietSomewhere(result)) return false;
          if (result === from) return true;
        }
        // Offsets are whole minutes, so the wall clock changes only at whole minutes: these are all.
        if (!quietSomewhere(from)) return false;
        for (let t = Math.ceil(from / MINUTE) * MINUTE; t < last; t += MINUTE) if (!quietSomewhere(t)) return false;
        return true;
      }),
      { numRuns: 300 },
    );
  });
});
