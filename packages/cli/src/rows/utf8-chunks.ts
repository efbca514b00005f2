/**
 * The text of a send-many file as UTF-8 chunks, checked as they pass: the one way its rows are read,
 * whatever the file's encoding.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { UsageError } from '../shell/exit-codes.js';
import { cutOff } from '../shell/utf8-cut.js';
import { notText } from './bad-text.js';
import { CHUNK_BYTES, type TextForm } from './text-form.js';

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
