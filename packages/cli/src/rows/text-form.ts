/**
 * How a send-many file's text is stored (its encoding and byte-order mark), found from its first
 * bytes, the size of the chunks it is read in, and text written back in the same form.
 */
import { open } from 'node:fs/promises';
import { UsageError } from '../shell/exit-codes.js';

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
export const CHUNK_BYTES = 16 * 1024;

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
