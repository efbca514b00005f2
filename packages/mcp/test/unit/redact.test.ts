/**
 * No secret in the server's log, in any encoding: fast-check writes secrets (any characters) in
 * each encoding a client or a library may use, in each place a log line may quote them (a path, a
 * query, a header, a body in the fields), through the server's own log (serverLog, which redacts
 * with the bin kit's redactSecrets), and decodes the line every way it can (decodings.ts, the
 * test's own decoding): the secret must not come back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { token } from '../../../../test/helpers/url-secrets.js';
import { ENCODINGS, tracesOf } from '../../../bin-kit/test/decodings.js';
import { serverLog } from '../../src/shell/log.js';

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
          expect(tracesOf(line, [secret]), `${encoding} in the ${place}: ${line}`).toEqual([]);
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
        fc.pre(tracesOf(text, [secret]).length === 0);
        const written: string[] = [];
        serverLog('info', [secret], (line) => written.push(line)).log.info?.(text);
        expect(written).toEqual([`[info] [tenant-messaging] ${text}\n`]);
      }),
      { numRuns: 200 },
    );
  });
});
