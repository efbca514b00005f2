/**
 * Quiet hours as pure arithmetic: the options checked, whether an instant is quiet in one zone,
 * and when a message due inside the window may go in one zone and in several at once. Every
 * instant is fixed, so no timer is involved. Daylight-saving changes are quiet-hours-dst.test.ts,
 * the recipient's zones recipient-zones.test.ts, the property test against Intl
 * quiet-hours-intl.test.ts.
 */
import { ValidationError } from 'tenant-messaging';
import { describe, expect, it } from 'vitest';
import { checkQuietHours, isQuietAt, quietUntil } from '../../../src/bullmq/schedule/quiet-hours.js';
import { noCommonMoment, zonesOfCountry } from '../../../src/bullmq/schedule/recipient-zones.js';
import { at, until, window } from './quiet-hours-helpers.js';

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
