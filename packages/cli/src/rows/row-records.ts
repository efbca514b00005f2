/**
 * The records of a send-many file as they stream from the disk, each with its own text as it was
 * (for writing it back byte for byte): NDJSON lines, and CSV records by csv-parse.
 */
import { parse } from 'csv-parse';
import { RowFileError } from './row-file-error.js';

/** A line of text and its line break, and its 1-based number. */
export interface TextLine {
  readonly text: string;
  readonly eol: string;
  readonly line: number;
}

/**
 * The lines of UTF-8 text read in chunks, each with its own line break (`\n` or `\r\n`).
 *
 * @example
 * ```ts
 * for await (const { text, line } of ndjsonLines(utf8Chunks(path, form))) JSON.parse(text)
 * ```
 */
export async function* ndjsonLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<TextLine> {
  let rest: Buffer | undefined;
  let line = 0;
  const lineOf = (bytes: Buffer, start: number, nl: number): TextLine => {
    const end = nl > start && bytes[nl - 1] === 0x0d ? nl - 1 : nl;
    return { text: bytes.toString('utf8', start, end), eol: end === nl ? '\n' : '\r\n', line: ++line };
  };
  for await (const chunk of chunks) {
    let start = 0;
    if (rest) {
      // A line across chunks: only its own bytes are joined.
      const nl = chunk.indexOf(0x0a);
      if (nl === -1) {
        rest = Buffer.concat([rest, chunk]);
        continue;
      }
      const joined = Buffer.concat([rest, chunk.subarray(0, nl + 1)]);
      yield lineOf(joined, 0, joined.length - 1);
      start = nl + 1;
    }
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      yield lineOf(chunk, start, nl);
      start = nl + 1;
    }
    rest = start < chunk.length ? chunk.subarray(start) : undefined;
  }
  if (rest) yield { text: rest.toString('utf8'), eol: '', line: ++line };
}

/** A CSV record: its fields (trimmed), its text as it was without its line break, and that break. */
export interface CsvRecord {
  readonly fields: readonly string[];
  readonly raw: string;
  readonly eol: string;
  /** The line it starts on. */
  readonly line: number;
}

/** Blank lines csv-parse skipped before a record: not part of it. */
const BLANK_LINES = /^(?:[^\S\r\n]*(?:\r\n|\n|\r))+/;
const LINE_BREAK = /\r\n|\n|\r/g;

/**
 * The records of a CSV read in chunks of UTF-8, with the text of each as it was: csv-parse says
 * where each record ends (in bytes of what it was given), and its bytes are kept until then.
 *
 * @example
 * ```ts
 * for await (const { fields, raw, line } of csvRecords(utf8Chunks(path, form), path)) console.log(line, fields)
 * ```
 */
export async function* csvRecords(chunks: AsyncIterable<Buffer>, path: string): AsyncGenerator<CsvRecord> {
  const ended: { fields: string[]; end: number }[] = [];
  const parser = parse({
    skip_empty_lines: true,
    trim: true,
    on_record: (fields: string[], { bytes }: { bytes: number }) => {
      ended.push({ fields, end: bytes });
      return null; // nothing queued in the stream: records are taken here, as they are parsed
    },
  });
  parser.on('error', () => {}); // reported through the write callback below
  const window = new ByteWindow();
  const give = (bytes: Buffer | undefined) =>
    new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(notCsv(path, error)) : resolve());
      if (bytes) parser.write(bytes, done);
      else parser.end(done);
    });
  // Lines are counted here: csv-parse counts a CRLF inside quotes as two.
  let linesBefore = 0;
  function* taken(): Generator<CsvRecord> {
    for (const { fields, end } of ended.splice(0)) {
      const text = window.take(end);
      const blank = BLANK_LINES.exec(text)?.[0] ?? '';
      const eol = /(?:\r\n|\n|\r)$/.exec(text)?.[0] ?? '';
      const raw = text.slice(blank.length, text.length - eol.length);
      yield { fields, raw, eol, line: linesBefore + 1 + breaksIn(blank) };
      linesBefore += breaksIn(text);
    }
  }
  try {
    for await (const bytes of chunks) {
      window.push(bytes);
      await give(bytes);
      yield* taken();
    }
    await give(undefined);
    yield* taken();
  } finally {
    parser.destroy();
  }
}

const breaksIn = (text: string) => text.match(LINE_BREAK)?.length ?? 0;

function notCsv(path: string, error: Error): RowFileError {
  return new RowFileError(
    `--file: ${path} is not valid CSV: ${error.message}. Nothing was sent.`,
    'Every row needs as many fields as the header, and a quote that opens a field must close it.',
  );
}

/** The bytes given to the CSV parser and not yet taken as a record's text. */
class ByteWindow {
  #chunks: Buffer[] = [];
  /** Where the first kept chunk starts, in bytes from the start of the text. */
  #base = 0;
  /** How far records were taken. */
  #taken = 0;

  push(bytes: Buffer): void {
    this.#chunks.push(bytes);
  }

  /** The text from the end of the last record taken to `end`. */
  take(end: number): string {
    const parts: Buffer[] = [];
    let start = this.#base;
    for (const chunk of this.#chunks) {
      const from = Math.max(this.#taken, start) - start;
      const to = Math.min(end, start + chunk.length) - start;
      if (to > from) parts.push(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to));
      start += chunk.length;
      if (start >= end) break;
    }
    while (this.#chunks.length > 0 && this.#base + (this.#chunks[0] as Buffer).length <= end) {
      this.#base += (this.#chunks.shift() as Buffer).length;
    }
    this.#taken = end;
    // A record across two chunks may have a character cut in two: its bytes are decoded together.
    return parts.length === 1 ? (parts[0] as Buffer).toString('utf8') : Buffer.concat(parts).toString('utf8');
  }
}
