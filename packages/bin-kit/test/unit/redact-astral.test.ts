/**
 * Redaction maps what it decodes back to the text by UTF-16 index: text with characters beyond
 * the BMP (emoji, in a message or a log line) before or around a percent-encoded secret must be
 * redacted the same, once, and the rest of the text kept as it was.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../src/redact.js';

describe('redactSecrets around astral characters', () => {
  it('redacts a percent-encoded secret after any emoji, and keeps the rest once', () => {
    const secret = 'p@ss word!';
    expect(redactSecrets(`${'😀'.repeat(18)}x=p@ss%20word! end`, [secret])).toBe(`${'😀'.repeat(18)}x=${REDACTED} end`);
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 12 }),
        fc.string({ unit: 'grapheme', maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        (before, after, times) => {
          let encoded = secret;
          for (let i = 0; i < times; i++) encoded = encodeURIComponent(encoded);
          const shown = redactSecrets(`${before}|${encoded}|${after}`, [secret]);
          expect(shown).not.toContain(encoded);
          expect(shown.startsWith(`${before}|`) || shown.startsWith(REDACTED)).toBe(true);
          expect(shown.length).toBeLessThanOrEqual(before.length + after.length + REDACTED.length + 2);
        },
      ),
      { numRuns: 300 },
    );
  });
});
