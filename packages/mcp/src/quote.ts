/**
 * How the server shows text it did not write (a message's text, a recipient, an argument) to a
 * person or a model: quoted, so it cannot pass for lines of the server's own (a line break, a
 * control or bidi character made visible), and, in a refusal, shortened as both bins shorten
 * input (the bin kit's quoteInput).
 */
import { QUOTE_MAX, quoteInput, shortInput } from 'tenant-messaging-bin-kit';

/**
 * Characters that would change how the text around them reads: controls (line breaks included),
 * format characters (bidi overrides such as U+202E, zero-width ones), line and paragraph separators,
 * private-use and unassigned code points, lone surrogates.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}]/gu;

/**
 * `text` in double quotes, as JSON writes a string, with every character of {@link HIDDEN} as a
 * `\uXXXX` escape: one line, shown as it is, and `JSON.parse` gives `text` back.
 *
 * @example
 * ```ts
 * quoted('Hi\nTo: +1 202 555 0100\u202E') // '"Hi\\nTo: +1 202 555 0100\\u202e"'
 * ```
 */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(HIDDEN, (char) =>
    [...Array(char.length).keys()].map((i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

/** A phone as people write it: shown bare; anything else is quoted. */
const PLAIN_PHONE = /^\+?[0-9][0-9 ().-]{0,30}$/;

/**
 * A recipient or sender as the server shows it: bare when it reads as a phone, quoted otherwise
 * (the SDK sends any `to_phone` the API takes, line breaks included); in a refusal (`echo`: the
 * secrets to redact first), quoted and shortened as every refusal quotes input (quoteInput).
 *
 * @example
 * ```ts
 * shownPhone('+15557654321') // '+15557654321'
 * ```
 */
export function shownPhone(phone: string, echo?: readonly string[]): string {
  if (PLAIN_PHONE.test(phone)) return phone;
  return echo ? quoteInput(phone, QUOTE_MAX, echo) : quoted(phone);
}

/**
 * `text` with every string of `input` (its values and its keys, at any depth) longer than
 * QUOTE_MAX shortened wherever `text` quotes it, raw, JSON-escaped or trimmed, as quoteInput
 * shortens it (without its quotes: the refusal has its own): a refusal never echoes a long input
 * whole, whichever code wrote it. `secrets` are redacted before a long input is cut.
 *
 * @example
 * ```ts
 * shortenEchoes(`"${long}" is not allowed`, { to_phone: long }) // '"+1555…5555 (5,012 characters)" is not allowed'
 * ```
 */
export function shortenEchoes(text: string, input: unknown, secrets: readonly string[] = []): string {
  let shown = text;
  for (const long of longStrings(input, new Set(), 0).sort((a, b) => b.length - a.length)) {
    const short = shortInput(long, QUOTE_MAX, secrets);
    for (const spelling of new Set([long, JSON.stringify(long).slice(1, -1), long.trim()])) {
      if ([...spelling].length > QUOTE_MAX && shown.includes(spelling)) shown = shown.replaceAll(spelling, () => short);
    }
  }
  return shown;
}

/** The strings of `value` longer than QUOTE_MAX, keys included, a bounded walk. */
function longStrings(value: unknown, found: Set<string>, depth: number): string[] {
  if (typeof value === 'string') {
    if ([...value].length > QUOTE_MAX) found.add(value);
  } else if (typeof value === 'object' && value !== null && depth < 8) {
    try {
      for (const [key, inner] of Object.entries(value)) {
        longStrings(key, found, depth);
        longStrings(inner, found, depth + 1);
      }
    } catch {
      // A getter or a proxy that throws: its strings were never quoted either.
    }
  }
  return [...found];
}
