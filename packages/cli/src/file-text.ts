import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { UsageError } from './exit-codes.js';

/** The encodings a send-many file may be in: UTF-8 (with or without a byte-order mark), or UTF-16 with one. */
export type FileEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** How a file's text is stored: its encoding, and whether it starts with a byte-order mark. */
export interface TextForm {
  readonly encoding: FileEncoding;
  /** The file starts with a byte-order mark (Excel's "CSV UTF-8" does): written back the same way. */
  readonly bom: boolean;
}

/**
 * Bytes read at a time: memory stays flat whatever the file's size. Not 64 KiB: csv-parse joins each
 * chunk to the unfinished end of the last one, and 64 KiB blocks left the process's malloc heap 12 MB
 * larger than 16 KiB ones did.
 */
const CHUNK_BYTES = 16 * 1024;

/**
 * A file that cannot be read as rows: not text in its encoding, not valid CSV or NDJSON, a header
 * that names a column twice. Found before any request (exit code 2); `advice` says what to do.
 *
 * @example
 * ```ts
 * throw new RowFileError('--file: a.csv is not valid UTF-8 (line 3, byte offset 57)', 'Save it as CSV UTF-8.')
 * ```
 */
export class RowFileError extends UsageError {
  override readonly name = 'RowFileError';

  constructor(
    message: string,
    /** What to do about it, for the `→` line under the error. */
    readonly advice: string,
  ) {
    super(message);
  }
}

/**
 * The encoding a file's first bytes announce: a UTF-16 byte-order mark, else UTF-8 (with or
 * without its own mark).
 *
 * @example
 * ```ts
 * textFormOf(Buffer.from([0xef, 0xbb, 0xbf, 0x74, 0x6f])) // { encoding: 'utf-8', bom: true }
 * ```
 */
export function textFormOf(head: Uint8Array): TextForm {
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: true };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: true };
  return { encoding: 'utf-8', bom: head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf };
}

/** Reads the first bytes of `path` for {@link textFormOf}; a file that cannot be read is a usage error. */
export async function readTextForm(path: string): Promise<TextForm> {
  try {
    const file = await open(path);
    try {
      const head = Buffer.alloc(3);
      const { bytesRead } = await file.read(head, 0, 3, 0);
      return textFormOf(head.subarray(0, bytesRead));
    } finally {
      await file.close();
    }
  } catch (error) {
    throw new UsageError(`--file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/**
 * The text of `path` as UTF-8 bytes, chunk by chunk (16 KiB at a time), the byte-order mark left
 * out: a UTF-8 file's own bytes, checked as they pass (no string is made of them), a UTF-16 file's
 * decoded and encoded again. Text that is not valid in its encoding, or holds a NUL character,
 * throws a {@link RowFileError} naming the line and byte offset of the first bad byte.
 *
 * @example
 * ```ts
 * for await (const bytes of utf8Chunks('campaign.csv', await readTextForm('campaign.csv'))) parser.write(bytes)
 * ```
 */
export async function* utf8Chunks(path: string, form: TextForm): AsyncGenerator<Buffer> {
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  try {
    const chunks = stream as AsyncIterable<Buffer>;
    yield* form.encoding === 'utf-8' ? checkedUtf8(chunks, form.bom, path) : fromUtf16(chunks, form, path);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  } finally {
    stream.destroy();
  }
}

/** UTF-8 chunks passed on as they are, each checked with the bytes a chunk before it left unfinished. */
async function* checkedUtf8(chunks: AsyncIterable<Buffer>, bom: boolean, path: string): AsyncGenerator<Buffer> {
  let unfinished: Buffer = Buffer.alloc(0);
  let first = bom;
  for await (let chunk of chunks) {
    if (first) {
      chunk = chunk.subarray(3);
      first = false;
    }
    let from = 0;
    if (unfinished.length > 0) {
      // The character the last chunk began: its lead byte says how many bytes it has.
      const lead = unfinished[0] as number;
      from = Math.min(chunk.length, (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2) - unfinished.length);
      const joined = Buffer.concat([unfinished, chunk.subarray(0, from)]);
      if (from === chunk.length && cutOff(joined) > 0) {
        unfinished = joined;
        yield chunk;
        continue;
      }
      if (!isUtf8(joined)) throw await notText(path, { encoding: 'utf-8', bom });
    }
    const cut = cutOff(chunk.subarray(from));
    if (!isUtf8(chunk.subarray(from, chunk.length - cut)) || chunk.includes(0)) {
      throw await notText(path, { encoding: 'utf-8', bom });
    }
    unfinished = chunk.subarray(chunk.length - cut);
    yield chunk;
  }
  if (unfinished.length > 0) throw await notText(path, { encoding: 'utf-8', bom });
}

/** How many bytes at the end of `bytes` begin a character they do not finish (0 to 3). */
function cutOff(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const length = byte >= 0xf0 && byte <= 0xf4 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc2 ? 2 : 1;
    return byte >= 0xc2 && byte <= 0xf4 && length > back ? back : 0;
  }
  return 0;
}

/** UTF-16 chunks decoded (the mark dropped) and passed on as UTF-8. */
async function* fromUtf16(chunks: AsyncIterable<Buffer>, form: TextForm, path: string): AsyncGenerator<Buffer> {
  // A decoder of the file's encoding drops a byte-order mark of that encoding, and only that one.
  const decoder = new TextDecoder(form.encoding, { fatal: true });
  const decode = async (chunk?: Buffer) => {
    let text: string;
    try {
      text = chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw await notText(path, form);
    }
    if (text.includes('\0')) throw await notText(path, form);
    return Buffer.from(text, 'utf8');
  };
  for await (const chunk of chunks) {
    const bytes = await decode(chunk);
    if (bytes.length > 0) yield bytes;
  }
  const rest = await decode();
  if (rest.length > 0) yield rest;
}

/**
 * `text` in `encoding`, for writing rows back in the form they were read.
 *
 * @example
 * ```ts
 * encodeText('\uFEFFto,text\n', 'utf-16le') // <Buffer ff fe 74 00 6f 00 ...>
 * ```
 */
export function encodeText(text: string, encoding: FileEncoding): Buffer {
  if (encoding === 'utf-8') return Buffer.from(text, 'utf8');
  const bytes = Buffer.from(text, 'utf16le');
  return encoding === 'utf-16be' ? bytes.swap16() : bytes;
}

/** The first byte (from the start of the file) that is not valid text, and the line it is on. */
interface BadByte {
  readonly offset: number;
  readonly line: number;
  readonly what: string;
}

/**
 * The error for a file that did not decode: the file is scanned again (streamed) by a checker that
 * knows where it is, which the platform's decoder does not say. Only ever run on a bad file.
 */
async function notText(path: string, form: TextForm): Promise<RowFileError> {
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
