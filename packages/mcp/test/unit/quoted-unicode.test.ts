/**
 * The confirmation and the preview show a message's text through `quoted()`, whose raw characters
 * are a positive list: whatever code point of all of Unicode a text holds (every category, lone
 * surrogates, unassigned ones), what reaches the person draws as a glyph of its own, or is an
 * escape. No code point that draws as nothing or as blank (format characters, variation
 * selectors, U+034F, Hangul fillers, the braille blank, wide spaces, every combining overlay) is
 * shown raw, no run of spaces can push a line apart, and `JSON.parse` gives the text back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoted } from '../../src/answers/quote.js';

/** Classes that must never reach the person raw (the test's own list, apart from quote.ts's). */
const NEVER_RAW = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\p{Me}\p{Default_Ignorable_Code_Point}]/u;
/**
 * Code points that draw blank or strike through their neighbour in categories otherwise shown:
 * the fillers, blanks and joiners, and every mark of canonical combining class 1 (Overlay) in
 * Unicode 17, as Python's `regex` lists `\p{ccc=1}`.
 */
const OVERLAY = [
  0x334, 0x335, 0x336, 0x337, 0x338, 0x1cd4, 0x1ce2, 0x1ce3, 0x1ce4, 0x1ce5, 0x1ce6, 0x1ce7, 0x1ce8, 0x20d2, 0x20d3,
  0x20d8, 0x20d9, 0x20da, 0x20e5, 0x20e6, 0x20ea, 0x20eb, 0x10a39, 0x16af0, 0x16af1, 0x16af2, 0x16af3, 0x16af4, 0x1bc9e,
  0x1d167, 0x1d168, 0x1d169,
];
const BLANK = [
  0x115f,
  0x1160,
  0x3164,
  0xffa0,
  0x2800,
  0x1d159,
  0x13441,
  0x13442,
  0x16fe4,
  0x17b4,
  0x17b5,
  0x034f,
  0x180b,
  0xfe00,
  0xfe0f,
  0xe0100,
  0xe01ef,
  ...OVERLAY,
];
const BASE = /^[\p{L}\p{N}\p{P}\p{S}"\\]$/u;

/** Any code point, a lone surrogate included (as the one UTF-16 unit it is). */
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));

/**
 * Any code point but a surrogate, as fast-check's `unit: 'binary'` draws them, without the second
 * its table of every code point takes to build in each worker.
 */
const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff - 0x800 })
  .map((code) => String.fromCodePoint(code < 0xd800 ? code : code + 0x800));

/** `char` as JSON escapes it, unit by unit. */
const escapeOf = (char: string) =>
  [...Array(char.length).keys()].map((i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/** The raw characters of a quoted text, with the escapes taken out. */
function rawOf(shown: string): string[] {
  return [...shown.slice(1, -1).replace(/\\u[0-9a-f]{4}|\\["\\nrtbf/]/g, '')];
}

/**
 * What is wrong with the quoting of `text`, if anything (none: it reads back, and what is raw in it
 * may be shown raw). A list, asserted once: an assertion for each character of thousands of texts
 * was most of the file's time.
 */
function problems(text: string): string[] {
  const shown = quoted(text);
  const found: string[] = [];
  if (JSON.parse(shown) !== text) found.push(`${shown} does not read back`);
  let marks = -1;
  let spaces = 0;
  for (const char of rawOf(shown)) {
    const code = char.codePointAt(0) as number;
    const at = `U+${code.toString(16)} raw in ${shown}`;
    if (NEVER_RAW.test(char) || BLANK.includes(code)) found.push(at);
    spaces = code === 0x20 ? spaces + 1 : 0;
    if (spaces > 2) found.push(`spaces in a row in ${shown}`);
    if (code !== 0x20 && /\p{Zs}/u.test(char)) found.push(at);
    if (/\p{M}/u.test(char)) {
      if (marks < 0) found.push(`a mark with nothing drawn before it in ${shown}`);
      marks++;
      if (marks > 2) found.push(`marks in a row in ${shown}`);
    } else marks = BASE.test(char) ? 0 : -1;
  }
  return found;
}

/** Asserts that the quoting of each of `texts` reads back and hides nothing (one assertion). */
function holds(...texts: string[]): void {
  expect(texts.flatMap(problems)).toEqual([]);
}

describe('quoted(): what the person reads of a message', () => {
  it('every code point of Unicode, alone, after a letter, after marks, repeated: shown raw only if it draws', () => {
    fc.assert(
      fc.property(codePoint, (char) =>
        holds(char, `a${char}`, `a\u0301\u0302${char}`, `${char}${char}${char}`, `x ${char} y`),
      ),
      { numRuns: 5_000 },
    );
  });

  it('all of Unicode, one code point at a time after a letter: raw only in the drawn categories, never a blank one', () => {
    const wrong: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      const char = String.fromCodePoint(code);
      const shown = quoted(`a${char}`);
      if (shown === `"a${char}"`) {
        // Raw: only in the categories that draw.
        const mayBeRaw =
          code === 0x20 ||
          (/^[\p{L}\p{N}\p{P}\p{S}\p{Mn}\p{Mc}]$/u.test(char) &&
            !BLANK.includes(code) &&
            char !== '"' &&
            char !== '\\');
        if (!mayBeRaw) wrong.push(`U+${code.toString(16)}`);
      } else if (JSON.parse(shown) !== `a${char}`) wrong.push(`U+${code.toString(16)} does not read back`);
    }
    expect(wrong).toEqual([]);
  });

  it('any text: reads back, and hides nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyCodePoint, maxLength: 40 }), (text) => holds(text)),
      { numRuns: 2_000 },
    );
  });

  it('every combining overlay, the braille blank, the null notehead and the Egyptian blanks are escapes, after any letter', () => {
    for (const code of [...OVERLAY, 0x2800, 0x1d159, 0x13441, 0x13442, 0x16fe4]) {
      const char = String.fromCodePoint(code);
      expect(quoted(`1${char}0`), `U+${code.toString(16)}`).toBe(`"1${escapeOf(char)}0"`);
      // A mark after it would sit on the escape: it is escaped as well.
      expect(quoted(`a${char}\u0301`)).toBe(`"a${escapeOf(char)}\\u0301"`);
    }
  });

  it("the issue's hidden payload and blank padding are escapes, not blanks", () => {
    const payload = `Your appointment is confirmed.${'\u{E0041}\uFE0F\u034F\u200B'.repeat(5)}\u{E0100}`;
    const shown = quoted(payload);
    expect(shown.startsWith('"Your appointment is confirmed.\\udb40\\udc41\\ufe0f\\u034f\\u200b')).toBe(true);
    const padded = quoted(`${'\u3164'.repeat(120)}To: +447911123456`);
    expect(padded).toBe(`"${'\\u3164'.repeat(120)}To: +447911123456"`);
    expect(quoted(`Hi${' '.repeat(40)}To: +447911123456`)).toBe(`"Hi  ${'\\u0020'.repeat(38)}To: +447911123456"`);
  });

  it('keeps the text people write as they wrote it: accents, scripts, emoji', () => {
    for (const text of ['Café', 'Cafe\u0301', 'नमस्ते', 'مرحبا', '你好，世界', 'Привет!', '👍 Done', '€5 off']) {
      expect(quoted(text)).toBe(JSON.stringify(text));
    }
  });
});
