/**
 * quoteInput, the one way a refusal of either bin quotes what it was given: property tests over
 * any text (short, long, astral, with controls and bidi characters), for the bound on its length,
 * a short input shown whole, a long one by its start, its end and its length, and no character
 * that could forge a line of the message.
 */
import fc from 'fast-check';
import { QUOTE_MAX, quoteInput, shortInput } from 'tenant-messaging-bin-kit';
import { describe, expect, it } from 'vitest';

/** Characters a refusal must never print raw: controls (C0, DEL, C1), format (bidi), line separators, lone surrogates. */
const FORGING = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/**
 * Any code point but a surrogate, as fast-check's `unit: 'binary'` draws them, without the second
 * its table of every code point takes to build in each worker.
 */
const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff - 0x800 })
  .map((code) => String.fromCodePoint(code < 0xd800 ? code : code + 0x800));

/** Any text, weighted toward what refusals meet: plain, astral, hostile, and long. */
const anyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: anyCodePoint, maxLength: 6_000, size: 'large' }),
  fc.string({
    size: 'large',
    unit: fc.constantFrom('5', '+', 'é', '😀', '\n', '\r', '\x1b', '\u202e', '\u2066', '\u0085', '\ud800', ' '),
    maxLength: 6_000,
  }),
);

/** The longest a quote can be: 40 + 12 characters, each at most an escape (`\u{10ffff}`), and the count. */
const BOUND = (QUOTE_MAX + 2) * '\\u{10ffff}'.length + ' (9,999,999 characters)'.length;

let runs = 0;
/** How many inputs were long (shortened): the property must see many. */
let long = 0;

describe('quoteInput', () => {
  it('is bounded, never prints a forging character raw, and keeps a long input’s start, end and length', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        runs++;
        const quoted = quoteInput(text);
        expect(quoted.length).toBeLessThanOrEqual(BOUND);
        expect(quoted).not.toMatch(FORGING);
        const chars = Array.from(text);
        if (chars.length <= QUOTE_MAX) {
          expect(quoted).not.toContain('characters)');
        } else {
          long++;
          expect(quoted).toMatch(new RegExp(`' \\(${chars.length.toLocaleString('en-US')} characters\\)$`));
          // The start and the end are the input's, escaped the same way as a short input's.
          const start = quoteInput(chars.slice(0, 40).join('')).slice(0, -1);
          const end = quoteInput(chars.slice(-12).join('')).slice(1);
          expect(quoted.startsWith(`${start}…`)).toBe(true);
          expect(quoted).toContain(`…${end} (`);
        }
      }),
      { numRuns: 400 },
    );
    expect(long).toBeGreaterThanOrEqual(100);
  });

  it('shows a short, plain input whole, as it was typed', () => {
    const plain = fc.string({ unit: 'grapheme', maxLength: 200 }).filter((text) => !FORGING.test(text));
    fc.assert(
      fc.property(plain, (text) => {
        runs++;
        fc.pre(Array.from(text).length <= QUOTE_MAX);
        expect(quoteInput(text)).toBe(`'${text}'`);
      }),
      { numRuns: 300 },
    );
    expect(runs).toBeGreaterThanOrEqual(700);
  });

  it('a 5,012-character phone becomes one short line', () => {
    const phone = `+1${'5'.repeat(5_010)}`;
    expect(quoteInput(phone)).toBe(`'+1${'5'.repeat(38)}…${'5'.repeat(12)}' (5,012 characters)`);
    expect(quoteInput('soon')).toBe("'soon'");
    expect(quoteInput('a\nTo: +1 202\u202e')).toBe("'a\\u{a}To: +1 202\\u{202e}'");
  });

  it('redacts the secrets it is given before it shortens: no cut keeps a part of one (fast-check)', () => {
    const secret = fc.string({ unit: 'grapheme-ascii', minLength: 16, maxLength: 80 });
    const around = fc.string({ unit: 'grapheme', maxLength: 120 });
    fc.assert(
      fc.property(secret, around, around, (key, before, after) => {
        runs++;
        const start = key.slice(0, 12);
        fc.pre(!`${before}${after}`.includes(start));
        const text = `${before}${key}${after}`;
        for (const shown of [quoteInput(text, QUOTE_MAX, [key]), shortInput(text, QUOTE_MAX, [key])]) {
          expect(shown).not.toContain(start);
        }
        // The short form is the quote without its quotes.
        const quoted = quoteInput(text);
        const inner = shortInput(text);
        const unquoted = quoted.replace(/' \((\S+) characters\)$/, ' ($1 characters)');
        expect(unquoted).toBe(quoted.endsWith("'") ? `'${inner}'` : `'${inner}`);
      }),
      { numRuns: 200 },
    );
  });
});
