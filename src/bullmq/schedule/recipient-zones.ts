/**
 * The time zones of a recipient, told from the country of their phone number: what
 * `quietHours: { timeZone: 'recipient' }` reads the window in.
 */
import { ValidationError } from '../../index.js';
import { loadPhoneTools } from '../../seam/phones.js';
import { clockOf } from './quiet-hours.js';
import type { QuietWindow } from './types.js';
import { isTimeZone } from './zone-offset.js';

const WHAT = 'Cannot apply quiet hours to this message';

/** The option that needs libphonenumber-js here, as the missing-peer error names it. */
export const RECIPIENT_ZONES = "quietHours: { timeZone: 'recipient' }";

/** What `Intl.Locale` offers about zones: a method in newer runtimes, a getter in older ones. */
interface LocaleZones {
  getTimeZones?(): string[] | undefined;
  readonly timeZones?: string[] | undefined;
}

const byCountry = new Map<string, readonly string[]>();

/**
 * The IANA time zones of an ISO 3166 country (`'US'`), as the runtime's data lists them; empty when
 * the runtime has none for it (`'XK'`, `'AC'`) or `country` is not a two-letter code.
 *
 * @example
 * ```ts
 * zonesOfCountry('GB') // ['Europe/London']
 * zonesOfCountry('AU') // ['Antarctica/Macquarie', 'Australia/Adelaide', …]
 * ```
 */
export function zonesOfCountry(country: string): readonly string[] {
  const code = country.toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) return [];
  let zones = byCountry.get(code);
  if (zones === undefined) {
    let listed: readonly string[] = [];
    try {
      const locale = new Intl.Locale(`und-${code}`) as Intl.Locale & LocaleZones;
      listed = locale.getTimeZones?.() ?? locale.timeZones ?? [];
    } catch {
      // A region the runtime's Intl.Locale refuses has no zones either.
    }
    // Kept only if Intl.DateTimeFormat reads them too: the arithmetic reads every zone through it.
    zones = Object.freeze(listed.filter(isTimeZone));
    byCountry.set(code, zones);
  }
  return zones;
}

/** A recipient as `'recipient'` quiet hours read it: its canonical number (a key), its country and its zones. */
export interface Recipient {
  /** The canonical E.164 form of `to_phone`: stored with the send, the key of its per-recipient lane. */
  readonly canonical: string;
  readonly country: string;
  /** Every time zone of its country (at least one). */
  readonly zones: readonly string[];
}

/**
 * Every time zone of the country of `toPhone` (the message's `to_phone`): one for most countries,
 * all of them for a country with several (`US`, `RU`, `BR`, `AU`, `CA`...), where the message waits
 * until it is outside quiet hours in each (see `noCommonMoment`). Throws a ValidationError when the
 * number does not tell its country, or the runtime has no zone data for that country.
 *
 * @example
 * ```ts
 * const zones = await recipientZones('+442071234567') // ['Europe/London']
 * const due = quietUntil(Date.now(), quietWindow(quietHours), zones)
 * ```
 */
export async function recipientZones(toPhone: string): Promise<readonly string[]> {
  return (await readRecipient(toPhone)).zones;
}

/**
 * `toPhone` parsed once (libphonenumber-js): its canonical form, its country and that country's
 * zones; the same ValidationError as `recipientZones` when they cannot be told.
 *
 * @example
 * ```ts
 * const { canonical, zones } = await readRecipient('+44 20 7123 4567') // '+442071234567', ['Europe/London']
 * ```
 */
export async function readRecipient(toPhone: string): Promise<Recipient> {
  const { canonical, country } = (await loadPhoneTools(RECIPIENT_ZONES)).read(toPhone);
  const zones = country === undefined ? [] : zonesOfCountry(country);
  if (country !== undefined && zones.length > 0) return { canonical, country, zones };
  const why =
    country === undefined
      ? "does not tell its country (a number not in international form, with + and its country code, or one that no country's numbering plan holds)"
      : `is in ${country}, for which this runtime has no time zone data`;
  throw new ValidationError(WHAT, [
    {
      path: 'quietHours.timeZone',
      message:
        `is 'recipient', but to_phone ${why}; give this message a time zone of its own, ` +
        `e.g. queue.send(params, { id, quietHours: { …, timeZone: 'America/New_York' } })`,
    },
    { path: 'to_phone', message: `${why}, so 'recipient' cannot tell its time zone` },
  ]);
}

/**
 * The error for a recipient whose country has several zones that are never all outside the
 * window at once (`quietUntil` gave undefined): it says to give the message a time zone of its own.
 *
 * @example
 * ```ts
 * const due = quietUntil(now, window, zones)
 * if (due === undefined) throw noCommonMoment('RU', zones, window)
 * ```
 */
export function noCommonMoment(country: string, zones: readonly string[], window: QuietWindow): ValidationError {
  const start = clockOf(window.startMinute);
  const end = clockOf(window.endMinute);
  const named = zones.length > 3 ? `${zones.slice(0, 3).join(', ')}…` : zones.join(', ');
  return new ValidationError(WHAT, [
    {
      path: 'quietHours.timeZone',
      message:
        `is 'recipient', and to_phone is in ${country}, whose ${zones.length} time zones (${named}) are not all ` +
        `outside quiet hours ${start}–${end} at any moment of the next 48 hours; give this message ` +
        `a time zone of its own, e.g. quietHours: { start: '${start}', end: '${end}', timeZone: '${zones[0] ?? 'America/New_York'}' }, ` +
        `or quietHours: null to send it at any hour`,
    },
  ]);
}
