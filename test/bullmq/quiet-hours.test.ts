/**
 * Quiet hours as pure arithmetic: whether an instant is quiet, and when a message due inside the
 * window may go, across daylight-saving changes (skipped and repeated hours, changes at midnight),
 * half-hour and three-quarter-hour zones, and several zones at once. Every instant is fixed, so no
 * timer is involved; a property test holds `quietUntil` to a minute-by-minute reading of Intl.
 */
import fc from 'fast-check';
import { ValidationError } from 'tenant-messaging';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkQuietHours,
  isQuietAt,
  type QuietWindow,
  quietUntil,
  quietWindow,
} from '../../src/bullmq/schedule/quiet-hours.js';
import { noCommonMoment, recipientZones, zonesOfCountry } from '../../src/bullmq/schedule/recipient-zones.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (iso: string) => Date.parse(iso);
const window = (start: string, end: string) => quietWindow({ start, end });
/** `quietUntil` for one zone, as an ISO string, so that a failure reads as a time. */
const until = (from: string, start: string, end: string, zone: string) => {
  const result = quietUntil(at(from), window(start, end), [zone]);
  return result === undefined ? undefined : new Date(result).toISOString();
};

describe('checkQuietHours', () => {
  const issues = (value: unknown) => checkQuietHours(value, 'quietHours');

  it('accepts a window with a zone, or with the recipient', () => {
    expect(issues({ start: '21:00', end: '08:00', timeZone: 'recipient' })).toEqual([]);
    expect(issues({ start: '00:00', end: '23:59', timeZone: 'America/New_York' })).toEqual([]);
    expect(issues({ start: '12:00', end: '13:30', timeZone: 'Pacific/Chatham' })).toEqual([]);
  });

  it("says what a time must look like, with the caller's text", () => {
    expect(issues({ start: '9pm', end: '08:00', timeZone: 'recipient' })).toEqual([
      { path: 'quietHours.start', message: "must be 'HH:MM' (24 h), such as '21:00'; got '9pm'" },
    ]);
    for (const bad of ['24:00', '7:00', '08:60', '08:00:00', ' 08:00', '0800']) {
      expect(issues({ start: '21:00', end: bad, timeZone: 'UTC' })).toEqual([
        { path: 'quietHours.end', message: `must be 'HH:MM' (24 h), such as '08:00'; got '${bad}'` },
      ]);
    }
    expect(issues({ start: 2100, end: '08:00', timeZone: 'UTC' })[0]?.message).toBe(
      "must be 'HH:MM' (24 h), such as '21:00'; got 2100",
    );
  });

  it('refuses a window that starts when it ends, saying why', () => {
    expect(issues({ start: '08:00', end: '08:00', timeZone: 'UTC' })).toEqual([
      {
        path: 'quietHours.end',
        message:
          "must differ from start ('08:00'): a window from a time to the same time could mean no quiet hours or the " +
          "whole day; give the end of the quiet time, such as '08:00', or leave quietHours out to send at any hour",
      },
    ]);
  });

  it('refuses a time zone the runtime does not know', () => {
    expect(issues({ start: '21:00', end: '08:00', timeZone: 'Mars/Olympus_Mons' })).toEqual([
      {
        path: 'quietHours.timeZone',
        message:
          "must be an IANA time zone that this runtime knows, such as 'America/New_York', or 'recipient' for the " +
          "zone of the recipient's country; got 'Mars/Olympus_Mons'",
      },
    ]);
    expect(issues({ start: '21:00', end: '08:00', timeZone: 'Recipient' })).toHaveLength(1);
    expect(issues({ start: '21:00', end: '08:00', timeZone: 5 })[0]?.message).toMatch(/; got 5$/);
  });

  it('names an unknown key, and what is missing', () => {
    expect(issues({ start: '21:00', end: '08:00', timezone: 'UTC' })).toEqual([
      {
        path: 'quietHours.timezone',
        message: 'is not an option of quietHours; did you mean timeZone? (options: start, end, timeZone)',
      },
      {
        path: 'quietHours.timeZone',
        message:
          "must be an IANA time zone that this runtime knows, such as 'America/New_York', or 'recipient' for the " +
          "zone of the recipient's country; got nothing",
      },
    ]);
    expect(issues({}).map((issue) => issue.path)).toEqual([
      'quietHours.start',
      'quietHours.end',
      'quietHours.timeZone',
    ]);
  });

  it('refuses what is not an object', () => {
    for (const value of [null, undefined, '21:00-08:00', [], 21]) {
      const found = issues(value);
      expect(found).toHaveLength(1);
      expect(found[0]?.path).toBe('quietHours');
      expect(found[0]?.message).toMatch(
        /^must be an object such as \{ start: '21:00', end: '08:00', timeZone: 'recipient' \}; got /,
      );
    }
  });
});

describe('one zone', () => {
  const nights = window('21:00', '08:00');
  const ny = 'America/New_York';

  it('reads a window as minutes of the day', () => {
    expect(nights).toEqual({ startMinute: 1260, endMinute: 480 });
    expect(() => window('9pm', '08:00')).toThrow(RangeError);
  });

  it('is quiet from the start included to the end excluded, across midnight', () => {
    // 2026-06-01 in New York is EDT, UTC-4.
    expect(isQuietAt(at('2026-06-01T00:59:59.999Z'), nights, ny)).toBe(false);
    expect(isQuietAt(at('2026-06-01T01:00Z'), nights, ny)).toBe(true);
    expect(isQuietAt(at('2026-06-01T03:59Z'), nights, ny)).toBe(true);
    expect(isQuietAt(at('2026-06-01T04:00Z'), nights, ny)).toBe(true);
    expect(isQuietAt(at('2026-06-01T11:59:59.999Z'), nights, ny)).toBe(true);
    expect(isQuietAt(at('2026-06-01T12:00Z'), nights, ny)).toBe(false);
  });

  it('gives the instant itself when it is not quiet, the end of the window when it is', () => {
    expect(until('2026-06-01T00:59:59.999Z', '21:00', '08:00', ny)).toBe('2026-06-01T00:59:59.999Z');
    expect(until('2026-06-01T01:00Z', '21:00', '08:00', ny)).toBe('2026-06-01T12:00:00.000Z');
    expect(until('2026-06-01T11:59:59.999Z', '21:00', '08:00', ny)).toBe('2026-06-01T12:00:00.000Z');
    expect(until('2026-06-01T12:00Z', '21:00', '08:00', ny)).toBe('2026-06-01T12:00:00.000Z');
    // Before midnight, the window ends the next morning; after it, the same morning.
    expect(until('2026-06-01T03:30:10Z', '21:00', '08:00', ny)).toBe('2026-06-01T12:00:00.000Z');
    expect(until('2026-06-01T04:30:10Z', '21:00', '08:00', ny)).toBe('2026-06-01T12:00:00.000Z');
    // A window that does not wrap.
    expect(until('2026-06-01T16:15Z', '12:00', '13:30', ny)).toBe('2026-06-01T17:30:00.000Z');
    expect(until('2026-06-01T15:59Z', '12:00', '13:30', ny)).toBe('2026-06-01T15:59:00.000Z');
  });

  it('throws a RangeError for an unknown zone, and holds nothing back for no zone', () => {
    expect(() => quietUntil(at('2026-06-01T02:00Z'), nights, ['Mars/Olympus_Mons'])).toThrow(RangeError);
    expect(quietUntil(at('2026-06-01T02:00Z'), nights, [])).toBe(at('2026-06-01T02:00Z'));
  });
});

describe('daylight-saving changes', () => {
  // America/New_York: 2026-03-08 07:00Z, 02:00 EST -> 03:00 EDT; 2026-11-01 06:00Z, 02:00 EDT -> 01:00 EST.
  const ny = 'America/New_York';

  it('New York, spring forward: the morning after ends at local 08:00 of the new offset', () => {
    expect(until('2026-03-08T04:00Z', '21:00', '08:00', ny)).toBe('2026-03-08T12:00:00.000Z');
  });

  it('a window ending inside the skipped hour ends when the clock jumps past its end', () => {
    expect(until('2026-03-08T06:00Z', '22:00', '02:30', ny)).toBe('2026-03-08T07:00:00.000Z');
    expect(until('2026-03-08T06:00Z', '22:00', '02:00', ny)).toBe('2026-03-08T07:00:00.000Z');
    expect(until('2026-03-08T06:59:59.999Z', '22:00', '02:30', ny)).toBe('2026-03-08T07:00:00.000Z');
  });

  it('a window starting inside the skipped hour starts when the clock jumps into it', () => {
    expect(isQuietAt(at('2026-03-08T06:59:59.999Z'), window('02:30', '06:00'), ny)).toBe(false);
    expect(until('2026-03-08T07:00Z', '02:30', '06:00', ny)).toBe('2026-03-08T10:00:00.000Z');
  });

  it('a window whose free time falls wholly in the skipped hour stays quiet until the next day', () => {
    // Free only from 02:10 to 02:40, which 2026-03-08 does not have in New York.
    expect(until('2026-03-08T06:30Z', '02:40', '02:10', ny)).toBe('2026-03-09T06:10:00.000Z');
  });

  it('New York, fall back: the morning after ends at local 08:00 of the new offset', () => {
    expect(until('2026-11-01T03:00Z', '21:00', '08:00', ny)).toBe('2026-11-01T13:00:00.000Z');
  });

  it('a window ending in the repeated hour ends at the first 01:30, and the repeat is quiet again', () => {
    expect(until('2026-11-01T03:00Z', '22:00', '01:30', ny)).toBe('2026-11-01T05:30:00.000Z');
    expect(isQuietAt(at('2026-11-01T05:59Z'), window('22:00', '01:30'), ny)).toBe(false);
    expect(isQuietAt(at('2026-11-01T06:00Z'), window('22:00', '01:30'), ny)).toBe(true);
    expect(until('2026-11-01T06:10Z', '22:00', '01:30', ny)).toBe('2026-11-01T06:30:00.000Z');
  });

  it('a window ending at the hour the clock never shows ends when the clock goes back out of it', () => {
    // 01:30-02:00: at the change the clock shows 01:00 again, outside the window.
    expect(until('2026-11-01T05:45Z', '01:30', '02:00', ny)).toBe('2026-11-01T06:00:00.000Z');
    expect(until('2026-11-01T06:30Z', '01:30', '02:00', ny)).toBe('2026-11-01T07:00:00.000Z');
  });

  // Europe/London: 2026-03-29 01:00Z, 01:00 GMT -> 02:00 BST; 2026-10-25 01:00Z, 02:00 BST -> 01:00 GMT.
  const london = 'Europe/London';

  it('London, spring forward', () => {
    expect(until('2026-03-28T23:00Z', '22:00', '07:00', london)).toBe('2026-03-29T06:00:00.000Z');
    expect(until('2026-03-29T00:40Z', '00:30', '01:30', london)).toBe('2026-03-29T01:00:00.000Z');
  });

  it('London, fall back', () => {
    expect(until('2026-10-24T22:00Z', '22:00', '07:00', london)).toBe('2026-10-25T07:00:00.000Z');
    expect(until('2026-10-24T22:30Z', '23:00', '01:15', london)).toBe('2026-10-25T00:15:00.000Z');
    expect(until('2026-10-25T01:05Z', '23:00', '01:15', london)).toBe('2026-10-25T01:15:00.000Z');
  });

  // America/Santiago changes at local midnight: 2026-09-06 04:00Z, 24:00 -04 -> 01:00 -03 (midnight
  // is skipped); 2026-04-05 03:00Z, 24:00 -03 -> 23:00 -04 (the hour before midnight repeats).
  const santiago = 'America/Santiago';

  it('Santiago, midnight skipped: a window ending at or after it ends at 01:00', () => {
    expect(until('2026-09-06T02:00Z', '22:00', '00:30', santiago)).toBe('2026-09-06T04:00:00.000Z');
    expect(until('2026-09-06T03:30Z', '21:00', '00:00', santiago)).toBe('2026-09-06T04:00:00.000Z');
    expect(until('2026-09-06T02:00Z', '22:00', '08:00', santiago)).toBe('2026-09-06T11:00:00.000Z');
  });

  it('Santiago, the hour before midnight repeated', () => {
    expect(until('2026-04-05T01:00Z', '22:00', '23:30', santiago)).toBe('2026-04-05T02:30:00.000Z');
    expect(until('2026-04-05T03:00Z', '22:00', '23:30', santiago)).toBe('2026-04-05T03:30:00.000Z');
    // Ending at midnight: the clock goes from 23:59:59 back to 23:00, so midnight comes an hour later.
    expect(until('2026-04-05T01:00Z', '21:00', '00:00', santiago)).toBe('2026-04-05T04:00:00.000Z');
  });

  it('half-hour zones: Kolkata, and Adelaide across both of its changes', () => {
    expect(until('2026-06-01T16:00Z', '21:00', '08:00', 'Asia/Kolkata')).toBe('2026-06-02T02:30:00.000Z');
    // Adelaide: 2026-04-04 16:30Z, 03:00 ACDT -> 02:00 ACST; 2026-10-03 16:30Z, 02:00 ACST -> 03:00 ACDT.
    expect(until('2026-04-04T12:00Z', '22:00', '02:30', 'Australia/Adelaide')).toBe('2026-04-04T16:00:00.000Z');
    expect(until('2026-10-03T13:00Z', '22:00', '02:30', 'Australia/Adelaide')).toBe('2026-10-03T16:30:00.000Z');
  });

  it('Pacific/Chatham, at +12:45 and across its change to +13:45', () => {
    expect(until('2026-06-01T10:00Z', '21:00', '08:00', 'Pacific/Chatham')).toBe('2026-06-01T19:15:00.000Z');
    // 2026-09-26 14:00Z: 02:45 +12:45 -> 03:45 +13:45.
    expect(until('2026-09-26T09:00Z', '21:00', '03:00', 'Pacific/Chatham')).toBe('2026-09-26T14:00:00.000Z');
  });
});

describe('several zones', () => {
  const nights = window('21:00', '08:00');

  it('a US number waits until no zone of the country is in quiet hours', () => {
    const us = zonesOfCountry('US');
    expect(us).toContain('America/New_York');
    expect(us).toContain('Pacific/Honolulu');
    // June: Eastern is free from 12:00Z to 01:00Z, Hawaii from 18:00Z to 07:00Z.
    expect(quietUntil(at('2026-06-01T02:00Z'), nights, us)).toBe(at('2026-06-01T18:00Z'));
    // January: Eastern is free from 13:00Z to 02:00Z.
    expect(quietUntil(at('2026-01-15T03:00Z'), nights, us)).toBe(at('2026-01-15T18:00Z'));
    expect(quietUntil(at('2026-06-01T20:00Z'), nights, us)).toBe(at('2026-06-01T20:00Z'));
    for (const zone of us) expect(isQuietAt(at('2026-06-01T18:00Z'), nights, zone)).toBe(false);
    expect(us.some((zone) => isQuietAt(at('2026-06-01T17:59Z'), nights, zone))).toBe(true);
  });

  it('a Russian number with 18:00-10:00 has no moment that suits every zone', () => {
    const ru = zonesOfCountry('RU');
    const evenings = window('18:00', '10:00');
    for (const from of ['2026-01-15T03:00Z', '2026-06-01T12:00Z', '2026-10-25T00:00Z']) {
      expect(quietUntil(at(from), evenings, ru)).toBeUndefined();
    }
    const error = noCommonMoment('RU', ru, evenings);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.field).toBe('quietHours.timeZone');
    expect(error.issues[0]?.message).toBe(
      `is 'recipient', and to_phone is in RU, whose ${ru.length} time zones (Asia/Anadyr, Asia/Barnaul, Asia/Chita…) ` +
        'are not all outside quiet hours 18:00–10:00 at any moment of the next 48 hours; give this ' +
        "message a time zone of its own, e.g. quietHours: { start: '18:00', end: '10:00', timeZone: 'Asia/Anadyr' }, " +
        'or quietHours: null to send it at any hour',
    );
  });

  it('moves on from zone to zone to the earliest moment free in each', () => {
    // 20:00Z: London (BST) 21:00, quiet until 07:00Z; Kolkata 01:30, quiet until 02:30Z.
    expect(quietUntil(at('2026-06-01T20:00Z'), nights, ['Asia/Kolkata', 'Europe/London'])).toBe(
      at('2026-06-02T07:00Z'),
    );
    expect(quietUntil(at('2026-06-01T20:00Z'), nights, ['Europe/London', 'Asia/Kolkata'])).toBe(
      at('2026-06-02T07:00Z'),
    );
  });
});

describe('recipient zones', () => {
  // Intl.Locale's zone getters, put back after a test replaces them (files share a worker).
  const proto = Intl.Locale.prototype;
  const saved = ['getTimeZones', 'timeZones'].map(
    (name) => [name, Object.getOwnPropertyDescriptor(proto, name)] as const,
  );
  afterEach(() => {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(proto, name, descriptor);
      else Reflect.deleteProperty(proto, name);
    }
  });

  it("gives the zones of the number's country, each Intl can read, cached per country", async () => {
    expect(await recipientZones('+442071234567')).toEqual(['Europe/London']);
    expect(await recipientZones('+919812345678')).toHaveLength(1);
    const us = await recipientZones('+12015550123');
    expect(us).toBe(zonesOfCountry('us'));
    expect(Object.isFrozen(us)).toBe(true);
    expect(zonesOfCountry('USA')).toEqual([]);
    expect(zonesOfCountry('')).toEqual([]);
  });

  it('falls back to the older timeZones getter, and keeps only the zones Intl.DateTimeFormat reads', () => {
    // Pitcairn: a country no other test asks about, so that its zones are not cached yet.
    Object.defineProperty(proto, 'getTimeZones', { value: undefined, configurable: true });
    Object.defineProperty(proto, 'timeZones', { get: () => ['Pacific/Pitcairn', 'Not/A_Zone'], configurable: true });
    expect(zonesOfCountry('PN')).toEqual(['Pacific/Pitcairn']);
  });

  it('refuses a number that does not tell its country, saying to give the message a zone', async () => {
    // A fictional number, and one not in international form (2025550123 is a US number as a
    // national one, and an Egyptian one read with a + in front): neither is guessed.
    for (const phone of ['+15550000001', '2025550123']) {
      const error = await recipientZones(phone).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues).toEqual([
        {
          path: 'quietHours.timeZone',
          message:
            "is 'recipient', but to_phone does not tell its country (a number not in international form, with + " +
            "and its country code, or one that no country's numbering plan holds); give this message a time zone " +
            "of its own, e.g. queue.send(params, { id, quietHours: { …, timeZone: 'America/New_York' } })",
        },
        {
          path: 'to_phone',
          message:
            'does not tell its country (a number not in international form, with + and its country code, or one ' +
            "that no country's numbering plan holds), so 'recipient' cannot tell its time zone",
        },
      ]);
    }
  });

  it('refuses a country for which the runtime has no zone data', async () => {
    expect(zonesOfCountry('XK')).toEqual([]);
    const error = await recipientZones('+38344123456').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('quietHours.timeZone');
    expect((error as ValidationError).message).toContain('is in XK, for which this runtime has no time zone data');
  });
});

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
