/**
 * Redaction stays linear in what it is given: anyone who can reach a logged URL (the MCP server
 * logs a refused request) can send 64 KB of `/a/a/a...`, and redaction must not turn that into
 * seconds of CPU. And bounding it must not cost a secret: one in any encoding, deep in a path of
 * many segments, is still redacted (decodings.ts, the test's own decoding, finds no trace of it).
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { token } from '../../../../test/helpers/url-secrets.js';
import { REDACTED, redactSecrets } from '../../src/redact.js';
import { ENCODINGS, tracesOf } from '../decodings.js';

const KEY = 'tmk_live_0123456789abcdefABCDEF';

/** 64 KB paths of the shapes that made each separator a decoding of the whole rest. */
const HOSTILE: Record<string, string> = {
  'one-letter segments': '/a'.repeat(32_000),
  'dotted pairs': 'ab.'.repeat(21_000),
  'base64 segments': '/QUJD'.repeat(12_800),
  'random base64': randomBytes(48_000).toString('base64'),
  'random base64, dotted': randomBytes(48_000)
    .toString('base64')
    .replace(/(.)(.)/g, '$1.'),
};

describe('redactSecrets on hostile input', () => {
  it.each(Object.keys(HOSTILE))('keeps a 64 KB URL of %s as it was, holding no secret', (shape) => {
    const line = `GET ${HOSTILE[shape]} HTTP/1.1`;
    expect(line.length).toBeGreaterThan(60_000);
    expect(redactSecrets(line, [KEY, 'tok_0123456789abcdef0123456789abcdef'])).toBe(line);
  });

  it('still redacts a secret in any encoding deep in a path of many segments', () => {
    fc.assert(
      fc.property(
        token('tmk_'),
        fc.constantFrom(...Object.keys(ENCODINGS)),
        fc.nat({ max: 150 }),
        fc.nat({ max: 150 }),
        fc.constantFrom('/a', '/QUJD', '.x', '~b/'),
        (secret, encoding, before, after, segment) => {
          const encoded = (ENCODINGS[encoding] as (s: string) => string)(secret);
          const line = `GET ${segment.repeat(before)}/${encoded}${segment.repeat(after)}`;
          const shown = redactSecrets(line, [secret]);
          expect(shown).toContain(REDACTED);
          expect(tracesOf(shown, [secret]), `${encoding}: ${shown}`).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });
});
