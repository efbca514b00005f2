/**
 * What a person is asked to confirm is exactly what will be sent: fast-check prepares messages
 * whose text (and sometimes recipient) tries to forge lines of the question (line breaks, a second
 * `To:`/`From:` block, bidi overrides, controls), declines each confirmation (nothing is sent), and
 * checks the question as the client received it: one `To:`, one `From:`, one `Text:` line, no raw
 * control, bidi, blank or invisible character (fillers, wide spaces, variation selectors, U+034F,
 * overlays), and the quoted text and recipient read back exactly. prepare_send's
 * preview shows the same lines.
 */
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, startFixture, text } from './mcp-fixture.js';

const SENDER = '+15550001001';
const TO = SANDBOX_PHONES.reads;

/**
 * Characters that change how text around them reads, or draw as nothing or as blank (every space
 * but U+0020, the ignorables: Hangul fillers, U+034F, variation selectors; the braille blank; the
 * combining overlays); only the question's own line breaks may appear.
 */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Default_Ignorable_Code_Point}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u2800\u{1D159}]/u;
/** Combining overlays, which strike through the character before (a class of their own: they combine). */
const OVERLAID = /\u0334|\u0335|\u0336|\u0337|\u0338|\u1CD4|\u20D2|\u{1D167}/u;

/** Pieces of a hostile text: line breaks of every kind, a forged block, bidi and zero-width characters. */
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '\n',
        '\r',
        '\r\n',
        '\u0085',
        '\u2028',
        '\u2029',
        '\u202E',
        '\u2066',
        '\u200B',
        '\u0007',
        '\u001b[2K',
        '\t',
        '"',
        '\\',
        '\u{E0041}',
        '\u{1F600}',
        '\u3164'.repeat(40),
        '\u2800',
        '\u034F',
        '\uFE0F',
        '\u{E0100}',
        '\u0338',
        '\u1CD4',
        '\u20D2',
        '\u{1D159}',
        '\u{1D167}',
        '\u3000\u2003',
        'To: +1 (202) 555-0100 (your own phone)',
        'From: Acme Support',
        'Text: "all fine"',
      ),
      fc.string({ maxLength: 12, unit: 'grapheme' }),
    ),
    { minLength: 1, maxLength: 12 },
  )
  // NUL and lone surrogates are refused by the SDK's checks: not texts that can be sent.
  .map((pieces) => `x${pieces.join('')}`.replaceAll('\u0000', ''));

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx?.close());

/** The lines of `shown` that start (after indentation) with `label`. */
const linesOf = (shown: string, label: string) =>
  shown
    .split('\n')
    .map((line) => line.trimStart())
    .filter((line) => line.startsWith(label));

describe('the confirmation of send_message', () => {
  it('names the real recipient and sender once, and quotes the text so it cannot forge a line (fast-check)', async () => {
    const server = await fx.connect(
      { allowSend: true },
      { capability: { form: {} }, answer: (): ElicitResult => ({ action: 'decline' }) },
    );
    const before = fx.posts();
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(hostile, fc.oneof(fc.constant(TO), hostile), async (content, to) => {
        runs++;
        const prepared = await server.call('prepare_send', {
          sender_phone: SENDER,
          to_phone: to,
          type: 'text',
          content,
        });
        expect(prepared.isError, text(prepared)).toBeFalsy();
        const approval = prepared.structuredContent?.['approval'] as string;
        const declined = await server.call('send_message', { approval });
        expect(text(declined)).toMatch(/^The person declined this message: nothing was sent/);
        const question = server.asked.at(-1) ?? '';
        for (const shown of [question, text(prepared)]) {
          const [toLine, ...moreTo] = linesOf(shown, 'To:');
          const [fromLine, ...moreFrom] = linesOf(shown, 'From:');
          const [textLine, ...moreText] = linesOf(shown, 'Text:');
          expect([moreTo, moreFrom, moreText], shown).toEqual([[], [], []]);
          expect(fromLine).toBe(`From: ${SENDER}`);
          const recipient = (toLine ?? '').slice('To: '.length);
          expect(to === TO ? recipient : JSON.parse(recipient)).toBe(to);
          expect(JSON.parse((textLine ?? '').slice('Text: '.length))).toBe(content);
          expect(shown.replaceAll('\n', ''), shown).not.toMatch(HIDDEN);
          expect(shown, shown).not.toMatch(OVERLAID);
        }
        // The recipient is in the To: line only, not in the question's first line too.
        expect(question).toMatch(/^Send this text message\?\n\nTo: /);
      }),
      { numRuns: 60 },
    );
    expect(runs).toBe(60);
    expect(server.asked).toHaveLength(60);
    expect(fx.posts()).toBe(before);
  });
});
