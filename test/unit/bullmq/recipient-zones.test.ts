/**
 * The zones of a recipient's number, for `'recipient'` quiet hours: every zone of its country that
 * Intl can read, and a clear refusal when the number or the runtime cannot tell them.
 */
import { ValidationError } from 'tenant-messaging';
import { afterEach, describe, expect, it } from 'vitest';
import { recipientZones, zonesOfCountry } from '../../../src/bullmq/schedule/recipient-zones.js';

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
