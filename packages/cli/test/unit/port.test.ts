/**
 * `--port` takes what an operator means by a port: decimal digits from 0 to 65535, nothing that
 * `Number()` alone would also read (`0x50` is 80, `1e3` is 1000, ` 80`, `+80`, `80.0`), refused
 * with a usage error naming the option. A property over strings: exactly the decimal ports pass.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePort } from '../../src/shell/duration.js';
import { UsageError } from '../../src/shell/exit-codes.js';

const decimalPort = (text: string) => /^[0-9]{1,5}$/.test(text) && Number(text) <= 65_535;

describe('--port', () => {
  it('accepts exactly the decimal ports 0 to 65535, whatever else Number() would read', () => {
    const texts = fc.oneof(
      fc.integer({ min: 0, max: 70_000 }).map(String),
      fc.integer({ min: 0, max: 65_535 }).map((n) => `0${n}`),
      fc.constantFrom('0x50', '1e3', ' 80', '80 ', '+80', '-1', '80.0', '65536', '', '0b1', '0o7', '٨٠', 'Infinity'),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(texts, (text) => {
        if (decimalPort(text)) expect(parsePort(text, '--port')).toBe(Number(text));
        else expect(() => parsePort(text, '--port')).toThrow(UsageError);
      }),
      { numRuns: 500 },
    );
    expect(() => parsePort('0x50', '--port')).toThrow(
      "--port must be a port number from 0 to 65535 in decimal digits (0: a free port), got '0x50'",
    );
  });
});
