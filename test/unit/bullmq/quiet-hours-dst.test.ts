/**
 * Quiet hours across daylight-saving changes: skipped and repeated hours, changes at midnight,
 * half-hour and three-quarter-hour zones. Every instant is fixed, so no timer is involved.
 */
import { describe, expect, it } from 'vitest';
import { isQuietAt } from '../../../src/bullmq/schedule/quiet-hours.js';
import { at, until, window } from './quiet-hours-helpers.js';

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
