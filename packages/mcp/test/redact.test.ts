/**
 * No secret in the server's log, in any encoding: fast-check writes secrets (any characters) in
 * each encoding a client or a library may use, in each place a log line may quote them (a path, a
 * query, a header, a body in the fields), through the server's own log (serverLog, which redacts
 * with the bin kit's redactSecrets), and decodes the line every way it can (decodings.ts, the
 * test's own decoding): the secret must not come back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { token } from '../../../test/helpers/url-secrets.js';
import { serverLog } from '../src/log.js';
import { decodings } from './decodings.js';

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const hexEach = (text: string) => [...utf8(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
const lowerEscapes = (text: string) => text.replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase());
const mixedEscapes = (text: string) =>
  text.replace(/%([0-9A-F])([0-9A-F])/g, (_, high: string, low: string) => `%${high}${low.toLowerCase()}`);

/** How a secret may be spelled, by a client or a library. */
const ENCODINGS: Record<string, (secret: string) => string> = {
  raw: (secret) => secret,
  percent: encodeURIComponent,
  'percent, lower case': (secret) => lowerEscapes(encodeURIComponent(secret)),
  'percent, mixed case': (secret) => mixedEscapes(encodeURIComponent(secret)),
  'percent, every byte (hex)': (secret) => hexEach(secret).toUpperCase(),
  'percent, every byte, lower case': hexEach,
  'form (+ for space)': (secret) => new URLSearchParams({ s: secret }).toString().slice(2),
  base64: (secret) => utf8(secret).toString('base64'),
  'base64 unpadded': (secret) => utf8(secret).toString('base64').replace(/=+$/, ''),
  base64url: (secret) => utf8(secret).toString('base64url'),
  'basic credentials': (secret) => `Basic ${utf8(`user:${secret}`).toString('base64')}`,
  'percent-encoded base64': (secret) => encodeURIComponent(utf8(secret).toString('base64')),
  hex: (secret) => utf8(secret).toString('hex'),
};

/** Where a log line may quote it. */
type Place = (encoded: string) => { message: string; fields?: Record<string, unknown> };
const PLACES: Record<string, Place> = {
  path: (encoded) => ({ message: `refused POST /mcp/${encoded}/tools` }),
  query: (encoded) => ({ message: `refused POST /mcp?page=2&token=${encoded}&x=1` }),
  header: (encoded) => ({ message: 'refused', fields: { headers: { authorization: `Bearer ${encoded}` } } }),
  body: (encoded) => ({ message: 'a request failed', fields: { body: JSON.stringify({ token: encoded }) } }),
};

describe('the log (serverLog, redacted by redactSecrets)', () => {
  it('never shows a secret: any secret x every encoding x every place, decoded every way', () => {
    let lines = 0;
    fc.assert(
      fc.property(
        token('tmk_'),
        fc.constantFrom(...Object.keys(ENCODINGS)),
        fc.constantFrom(...Object.keys(PLACES)),
        (secret, encoding, place) => {
          const written: string[] = [];
          const { log } = serverLog('debug', ['an-other-secret-0123456789', secret], (line) => written.push(line));
          const { message, fields } = (PLACES[place] as Place)((ENCODINGS[encoding] as (s: string) => string)(secret));
          log.warn?.(message, fields);
          const [line = ''] = written;
          lines++;
          for (const form of decodings(line))
            expect(form, `${encoding} in the ${place}: ${line}`).not.toContain(secret);
          expect(line).toContain('[redacted]');
          // What is not the secret is still there.
          expect(line).toMatch(/^\[warn\] \[tenant-messaging\] (refused|a request failed)/);
        },
      ),
      { numRuns: 200 },
    );
    expect(lines).toBe(200);
  });

  it('keeps what holds no secret as it was', () => {
    fc.assert(
      fc.property(token('tmk_'), fc.string({ maxLength: 80 }), (secret, text) => {
        fc.pre(!decodings(text).some((form) => form.includes(secret)));
        const written: string[] = [];
        serverLog('info', [secret], (line) => written.push(line)).log.info?.(text);
        expect(written).toEqual([`[info] [tenant-messaging] ${text}\n`]);
      }),
      { numRuns: 200 },
    );
  });
});
