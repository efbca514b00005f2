/**
 * The bin's streams redacted write by write (secrets.ts), in process: bytes are read as one UTF-8
 * stream, so a character split across two writes comes out whole, and the secret on the line it
 * ends is redacted; text with no secret comes out byte for byte, however its writes are cut.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepSecrets, redactWrites } from '../../src/shell/secrets.js';

const SECRET = 'tm_live_Sëcret+Key/42=&%x';
keepSecrets([SECRET]);

/** A stream whose writes are kept, redacted as the bin's own are. */
function captured(): { stream: NodeJS.WriteStream; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  redactWrites(stream);
  return { stream, bytes: () => Buffer.concat(chunks) };
}

/** Writes `bytes` in the pieces `cuts` (byte offsets, any order) make. */
function writeCut(stream: NodeJS.WriteStream, bytes: Buffer, cuts: readonly number[]): void {
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...at, bytes.length]) {
    stream.write(bytes.subarray(from, to));
    from = to;
  }
}

describe('redacted writes of bytes', () => {
  it('text without a secret comes out byte for byte, wherever its writes cut a character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const { stream, bytes } = captured();
        const input = Buffer.from(`${text}\n`);
        writeCut(stream, input, cuts);
        expect(bytes().equals(input)).toBe(true);
      }),
    );
  });

  it('a line that ends a character the write before began: the character whole, the secret redacted', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1 }), fc.nat(), (prefix, cut) => {
        const { stream, bytes } = captured();
        const head = Buffer.from(prefix);
        // The previous write ends inside the prefix (often inside a character); the secret's line whole after it.
        const at = cut % (head.length + 1);
        stream.write(head.subarray(0, at));
        stream.write(Buffer.concat([head.subarray(at), Buffer.from(` key=${SECRET}\n`)]));
        const out = bytes().toString('utf8');
        expect(out).not.toContain(SECRET);
        expect(out.startsWith(`${prefix} key=`)).toBe(true);
      }),
    );
  });
});
