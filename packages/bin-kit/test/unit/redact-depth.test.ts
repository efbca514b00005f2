/**
 * A percent-encoding repeated any number of times (a URL built from a URL built from a URL...) is
 * redacted however deep: encodeURIComponent applied 1 to 200 times to any secret, or to its UTF-8
 * or UTF-16 hex, in any case of escapes, anywhere in a line, leaves nothing that decodes back to
 * it (decodings.ts, the test's own decoding, undoes every layer). Before, 16 layers were undone,
 * three times over through the nesting: a secret encoded 65 times was logged whole.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { token } from '../../../../test/helpers/url-secrets.js';
import { REDACTED, redactSecrets } from '../../src/redact.js';
import { percentFully, tracesOf } from '../decodings.js';

/** `text` passed through encodeURIComponent `times` times. */
function encodedTimes(text: string, times: number): string {
  let encoded = text;
  for (let i = 0; i < times; i++) encoded = encodeURIComponent(encoded);
  return encoded;
}

/** What is encoded: the secret, or the hex of its UTF-8 or UTF-16 bytes. */
const FORMS: Record<string, (secret: string) => string> = {
  plain: (secret) => secret,
  'UTF-8 hex': (secret) => Buffer.from(secret, 'utf8').toString('hex'),
  'UTF-16LE hex': (secret) => Buffer.from(secret, 'utf16le').toString('hex').toUpperCase(),
  'UTF-16BE base64': (secret) => Buffer.from(secret, 'utf16le').swap16().toString('base64'),
};

const CASES: Record<string, (escaped: string) => string> = {
  upper: (escaped) => escaped,
  lower: (escaped) => escaped.replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase()),
};

describe('redactSecrets, percent-encoding repeated', () => {
  it('redacts a secret percent-encoded any number of times, in any of its forms, wherever it stands', () => {
    fc.assert(
      fc.property(
        token('tmk_'),
        fc.integer({ min: 1, max: 200 }),
        fc.constantFrom(...Object.keys(FORMS)),
        fc.constantFrom(...Object.keys(CASES)),
        fc.constantFrom(['GET /mcp/', ' HTTP/1.1'], ['POST /mcp?page=2&token=', '&x=1'], ['key ', ' said'], ['', '']),
        (secret, times, form, escapes, [before, after]) => {
          const encoded = (CASES[escapes] as (e: string) => string)(
            encodedTimes((FORMS[form] as (s: string) => string)(secret), times),
          );
          const line = `${before}${encoded}${after}`;
          const shown = redactSecrets(line, [secret]);
          expect(shown).toContain(REDACTED);
          expect(tracesOf(shown, [secret]), `${form} x${times}: ${shown}`).toEqual([]);
          // What was around it is still there (a run of an encoder's characters is replaced whole).
          if (before !== '') expect(shown.slice(0, 3)).toBe(before.slice(0, 3));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('redacts a secret that holds escapes of its own, encoded any number of times', () => {
    // A secret's own `%` is one layer deeper than the characters encoded with it: undoing every
    // escape to its innermost byte went past it (`tmk_%00` encoded 50 times was logged whole).
    fc.assert(
      fc.property(
        token('tmk_'),
        fc.array(fc.constantFrom('%00', '%41', '%2541', '%25', '%', '%%', ' ', '+'), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 200 }),
        fc.constantFrom(...Object.keys(CASES)),
        (token, escapes, times, escapeCase) => {
          // Between two code points of the token, past its prefix.
          const points = Array.from(token);
          const at = 4 + (points.length % 5);
          const secret = `${points.slice(0, at).join('')}${escapes.join('')}${points.slice(at).join('')}`;
          const line = `GET /mcp/${(CASES[escapeCase] as (e: string) => string)(encodedTimes(secret, times))} HTTP/1.1`;
          const shown = redactSecrets(line, [secret]);
          expect(shown).toContain(REDACTED);
          expect(tracesOf(shown, [secret]), `x${times}: ${shown}`).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps a deeply encoded text that holds no secret as it was', () => {
    fc.assert(
      fc.property(
        token('tmk_'),
        fc.string({ maxLength: 30 }),
        fc.integer({ min: 1, max: 100 }),
        (secret, text, times) => {
          const line = `/mcp/${encodedTimes(text, times)}`;
          fc.pre(!percentFully(line).includes(secret) && tracesOf(line, [secret]).length === 0);
          expect(redactSecrets(line, [secret])).toBe(line);
        },
      ),
      { numRuns: 150 },
    );
  });
});
