/**
 * How the server shows text it did not write (a message's text, a recipient, an argument) to a
 * person or a model: quoted, so it cannot pass for lines of the server's own (a line break, a
 * control or bidi character made visible), and, in a refusal, shortened as both bins shorten
 * input (the bin kit's quoteInput).
 */
import { QUOTE_MAX, quoteInput, shortInput } from 'tenant-messaging-bin-kit';

/**
 * What is shown as it is, a positive list: letters, digits, punctuation and symbols (what draws as
 * a glyph of its own), the one space U+0020, and a combining mark right after such a character
 * (an accent, a vowel sign), at most two in a row; at most two spaces in a row. Everything else is
 * an escape: controls, format characters (bidi overrides, zero-width ones, tags), every other
 * space (no-break, wide, ideographic), separators, private-use, unassigned and lone surrogates,
 * enclosing marks, and the characters below that draw as nothing or as blank however they are classed.
 */
const DRAWN = /^[\p{L}\p{N}\p{P}\p{S}]$/u;
const MARK = /^\p{M}$/u;
const ENCLOSING = /^\p{Me}$/u;

/**
 * Letters, symbols and marks that draw as blank or as nothing: the Hangul fillers, the braille
 * blank, the Khmer inherent vowels, the combining grapheme joiner, the variation selectors, and the
 * combining overlays (a stroke or a slash drawn through the character before).
 */
function drawsBlank(code: number): boolean {
  return (
    code === 0x115f ||
    code === 0x1160 ||
    code === 0x3164 ||
    code === 0xffa0 ||
    code === 0x2800 ||
    code === 0x17b4 ||
    code === 0x17b5 ||
    code === 0x034f ||
    (code >= 0x180b && code <= 0x180f) ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0xe0100 && code <= 0xe01ef) ||
    (code >= 0x0334 && code <= 0x0338) ||
    code === 0x20d2 ||
    code === 0x20d3 ||
    (code >= 0x20d8 && code <= 0x20da) ||
    code === 0x20e5 ||
    code === 0x20e6 ||
    code === 0x20ea ||
    code === 0x20eb ||
    (code >= 0x1d167 && code <= 0x1d169) ||
    (code >= 0x1d173 && code <= 0x1d17a)
  );
}

/** The escape of one code point as JSON writes it: `\uXXXX`, a surrogate pair beyond the BMP. */
const escaped = (char: string) =>
  [...Array(char.length).keys()].map((i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/**
 * `text` in double quotes, as JSON writes a string, with every code point outside the positive
 * list above as a `\uXXXX` escape: one line, every character that could hide, pad or forge a
 * line made visible, and `JSON.parse` gives `text` back.
 *
 * @example
 * ```ts
 * quoted('Hi\nTo: +1 202 555 0100\u202E') // '"Hi\\nTo: +1 202 555 0100\\u202e"'
 * ```
 */
export function quoted(text: string): string {
  let shown = '';
  let marks = -1; // marks since the last drawn character; -1: none may follow
  let spaces = 0; // spaces in a row: a long run of them would push what follows onto a line of its own
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    spaces = code === 0x20 ? spaces + 1 : 0;
    if (code === 0x20) {
      shown += spaces <= 2 ? char : escaped(char);
      marks = -1;
    } else if (code < 0x20 || code === 0x7f || char === '"' || char === '\\') {
      // As JSON writes them (\n, \", \\); DEL, which JSON leaves raw, as an escape.
      const json = JSON.stringify(char).slice(1, -1);
      shown += json.length > 1 ? json : escaped(char);
      marks = char === '"' || char === '\\' ? 0 : -1;
    } else if (drawsBlank(code)) {
      shown += escaped(char);
    } else if (DRAWN.test(char)) {
      shown += char;
      marks = 0;
    } else if (MARK.test(char) && !ENCLOSING.test(char) && marks >= 0 && marks < 2) {
      shown += char;
      marks++;
    } else {
      shown += escaped(char);
      if (!MARK.test(char)) marks = -1;
    }
  }
  return `"${shown}"`;
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
