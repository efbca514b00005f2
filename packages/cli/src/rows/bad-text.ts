/**
 * Where a file stops being valid text: a UTF-8 and a UTF-16 scanner that know the line and byte
 * offset they are at, and the error for a file that did not decode, naming its first bad byte.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { RowFileError } from './row-file-error.js';
import { CHUNK_BYTES, type TextForm } from './text-form.js';

/** The first byte (from the start of the file) that is not valid text, and the line it is on. */
interface BadByte {
  readonly offset: number;
  readonly line: number;
  readonly what: string;
}

/**
 * The error for a file that did not decode: the file is scanned again (streamed) by a checker that
 * knows where it is, which the platform's decoder does not say. Only ever run on a bad file.
 *
 * @example
 * ```ts
 * if (!isUtf8(chunk)) throw await notText(path, { encoding: 'utf-8', bom: false })
 * ```
 */
export async function notText(path: string, form: TextForm): Promise<RowFileError> {
  const scanner = form.encoding === 'utf-8' ? utf8Scanner() : utf16Scanner(form.encoding === 'utf-16be');
  let bad: BadByte | undefined;
  let offset = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
    bad = scanner.scan(chunk, offset);
    if (bad) break;
    offset += chunk.length;
  }
  bad ??= scanner.end(offset);
  const name = basename(path);
  const where = bad
    ? ` at line ${bad.line}, byte offset ${bad.offset} (${await bytesAt(path, bad.offset)}: ${bad.what})`
    : '';
  const encoding = form.encoding === 'utf-8' ? 'UTF-8' : `UTF-16 (${form.encoding === 'utf-16le' ? 'LE' : 'BE'})`;
  return new RowFileError(
    `--file: ${path} is not valid ${encoding}${where}. Nothing was sent.`,
    bad?.what === 'a NUL character'
      ? 'A NUL is what UTF-16 without its byte-order mark looks like. Save the file as "CSV UTF-8" (Excel: Save As > CSV UTF-8), or with its byte-order mark.'
      : `Save the file as "CSV UTF-8" (Excel: Save As > CSV UTF-8), or convert it, e.g. from Latin-1: iconv -f WINDOWS-1252 -t UTF-8 ${name} > utf8-${name}`,
  );
}

/** Up to 4 bytes from `offset`, in hex, for the error message. */
async function bytesAt(path: string, offset: number): Promise<string> {
  const file = await open(path);
  try {
    const bytes = Buffer.alloc(4);
    const { bytesRead } = await file.read(bytes, 0, 4, offset);
    return [...bytes.subarray(0, bytesRead)].map((b) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');
  } finally {
    await file.close();
  }
}

interface Scanner {
  /** The first bad byte in `chunk` (which starts at `base`), carrying its state to the next chunk. */
  scan(chunk: Uint8Array, base: number): BadByte | undefined;
  /** A character cut off by the end of the file (`size` bytes long). */
  end(size: number): BadByte | undefined;
}

/** UTF-8 as the WHATWG decoder checks it (shortest forms only, no surrogates, at most U+10FFFF), and no NUL. */
function utf8Scanner(): Scanner {
  let need = 0;
  let lower = 0x80;
  let upper = 0xbf;
  let start = 0;
  let line = 1;
  return {
    scan(chunk, base) {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i] as number;
        if (need === 0) {
          if (byte < 0x80) {
            if (byte === 0x0a) line++;
            else if (byte === 0) return { offset: base + i, line, what: 'a NUL character' };
            continue;
          }
          start = base + i;
          if (byte >= 0xc2 && byte <= 0xdf) need = 1;
          else if (byte >= 0xe0 && byte <= 0xef) {
            need = 2;
            if (byte === 0xe0) lower = 0xa0;
            if (byte === 0xed) upper = 0x9f;
          } else if (byte >= 0xf0 && byte <= 0xf4) {
            need = 3;
            if (byte === 0xf0) lower = 0x90;
            if (byte === 0xf4) upper = 0x8f;
          } else return { offset: start, line, what: 'not a UTF-8 character' };
        } else if (byte < lower || byte > upper) {
          return { offset: start, line, what: 'not a UTF-8 character' };
        } else {
          lower = 0x80;
          upper = 0xbf;
          need--;
        }
      }
      return undefined;
    },
    end() {
      return need > 0 ? { offset: start, line, what: 'a character cut off by the end of the file' } : undefined;
    },
  };
}

/** UTF-16: whole code units, surrogates in pairs, and no NUL. */
function utf16Scanner(bigEndian: boolean): Scanner {
  let carry: number | undefined;
  let high: number | undefined;
  let line = 1;
  return {
    scan(chunk, base) {
      let i = 0;
      const unitAt = (first: number, second: number) => (bigEndian ? (first << 8) | second : (second << 8) | first);
      for (;;) {
        let unit: number;
        let at: number;
        if (carry !== undefined) {
          if (i >= chunk.length) return undefined;
          unit = unitAt(carry, chunk[i] as number);
          at = base - 1;
          carry = undefined;
          i += 1;
        } else {
          if (i + 1 >= chunk.length) {
            if (i < chunk.length) carry = chunk[i];
            return undefined;
          }
          unit = unitAt(chunk[i] as number, chunk[i + 1] as number);
          at = base + i;
          i += 2;
        }
        if (high !== undefined) {
          if (unit >= 0xdc00 && unit <= 0xdfff) {
            high = undefined;
            continue;
          }
          return { offset: high, line, what: 'a surrogate without its pair' };
        }
        if (unit >= 0xd800 && unit <= 0xdbff) high = at;
        else if (unit >= 0xdc00 && unit <= 0xdfff) return { offset: at, line, what: 'a surrogate without its pair' };
        else if (unit === 0x0a) line++;
        else if (unit === 0) return { offset: at, line, what: 'a NUL character' };
      }
    },
    end(size) {
      if (carry !== undefined) return { offset: size - 1, line, what: 'an odd number of bytes' };
      return high === undefined ? undefined : { offset: high, line, what: 'a surrogate without its pair' };
    },
  };
}
