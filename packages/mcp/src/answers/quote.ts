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
 * enclosing marks, and the characters below that draw as nothing or as blank, or strike through
 * the character before, however they are classed.
 */
const DRAWN = /^[\p{L}\p{N}\p{P}\p{S}]$/u;
const MARK = /^\p{M}$/u;
const ENCLOSING = /^\p{Me}$/u;

/**
 * What draws as nothing wherever it stands: Unicode's Default_Ignorable_Code_Point (the Hangul
 * fillers U+115F, U+1160, U+3164, U+FFA0, the Khmer inherent vowels, the combining grapheme
 * joiner U+034F, the variation selectors, the format characters), whatever its category.
 */
const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;

/**
 * The combining overlays: every mark of canonical combining class 1 (Overlay), drawn through the
 * character before it (a stroke, a slash, a ring: `1` and U+0338 read as a crossed-out digit), as
 * of Unicode 17. JavaScript's regular expressions do not know the class, hence the ranges.
 */
const OVERLAYS: readonly (readonly [number, number])[] = [
  [0x0334, 0x0338],
  [0x1cd4, 0x1cd4],
  [0x1ce2, 0x1ce8],
  [0x20d2, 0x20d3],
  [0x20d8, 0x20da],
  [0x20e5, 0x20e6],
  [0x20ea, 0x20eb],
  [0x10a39, 0x10a39],
  [0x16af0, 0x16af4],
  [0x1bc9e, 0x1bc9e],
  [0x1d167, 0x1d169],
];

/**
 * Letters, symbols and marks drawn as a blank though Unicode does not call them ignorable: the
 * braille blank U+2800, the musical null notehead U+1D159, the Egyptian full and half blanks
 * U+13441 and U+13442, the Khitan filler U+16FE4.
 */
const BLANK_GLYPHS: ReadonlySet<number> = new Set([0x2800, 0x1d159, 0x13441, 0x13442, 0x16fe4]);

/** True for a code point that draws as blank or as nothing, or strikes through its neighbour. */
function drawsBlank(char: string, code: number): boolean {
  return IGNORABLE.test(char) || BLANK_GLYPHS.has(code) || OVERLAYS.some(([low, high]) => code >= low && code <= high);
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
    } else if (drawsBlank(char, code)) {
      // A mark after it would sit on the escape's last digit: it is an escape too.
      shown += escaped(char);
      marks = -1;
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
