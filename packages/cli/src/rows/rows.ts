/** A send-many file's rows: read through once to check it whole, then streamed again, row by row. */
import { extname } from 'node:path';
import { csvColumns } from './csv-header.js';
import { ndjsonObject } from './ndjson-object.js';
import { fieldOf, normalise, REASON_COLUMN, type RowField } from './row-fields.js';
import { RowFileError } from './row-file-error.js';
import { type CsvRecord, csvRecords, ndjsonLines } from './row-records.js';
import { readTextForm, type TextForm } from './text-form.js';
import { utf8Chunks } from './utf8-chunks.js';

/** One row of a send-many file: its fields, and its text as it was in the file. */
export interface Row {
  /** 1-based line (CSV: the record's first line) in the file, for messages. */
  readonly line: number;
  /** The fields it gives a value to (an empty cell gives none), under their {@link ROW_FIELDS} names. */
  readonly fields: Readonly<Partial<Record<RowField, string>>>;
  /** The row's own text, as it was in the file, without its line break. */
  readonly raw: string;
  /** Its line break as it was (`\n`, `\r\n` or `\r`), or '' for a last line without one. */
  readonly eol: string;
}

/** A send-many file, read through once: what writing its rows back needs, and how many there are. */
export interface RowFile {
  readonly path: string;
  readonly format: 'csv' | 'ndjson';
  /** Its encoding and byte-order mark: rows are written back in the same form. */
  readonly text: TextForm;
  /** CSV: the header line as it was, without its line break. NDJSON: ''. */
  readonly header: string;
  /** The line break written after a line that had none: the header's, else `\n`. */
  readonly eol: string;
  /** How many rows (header and blank lines not counted). */
  readonly rows: number;
  /** CSV: the field each column gives, by position (undefined: a column send-many does not read). */
  readonly columns: readonly (RowField | undefined)[];
  /** Columns (NDJSON: keys) send-many does not read, as the file names them. */
  readonly ignored: readonly string[];
  /** CSV: the header's last column is {@link REASON_COLUMN} (a failed rows' file sent again). */
  readonly reasonColumn: boolean;
}

const isNdjson = (path: string) => ['.ndjson', '.jsonl'].includes(extname(path).toLowerCase());

/**
 * Reads a CSV (with a header row) or NDJSON (one JSON object a line) file through once, streamed,
 * before anything is sent: the format by its extension (`.ndjson`/`.jsonl`, else CSV), the encoding
 * by its byte-order mark (UTF-8, with or without one, or UTF-16), every byte checked as text, the
 * CSV's syntax and header, each NDJSON line an object. Anything wrong throws a `RowFileError`
 * (exit code 2) naming the line. A stop signal does not cut it short: it sends nothing, and a
 * million rows take a few seconds.
 *
 * @example
 * ```ts
 * const file = await openRows('campaign.csv') // to,text\n+15557654321,Hello
 * for await (const row of readRows(file)) console.log(row.line, row.fields.to)
 * ```
 */
export async function openRows(path: string): Promise<RowFile> {
  const text = await readTextForm(path);
  if (isNdjson(path)) {
    let rows = 0;
    const ignored = new Set<string>();
    for await (const line of ndjsonLines(utf8Chunks(path, text))) {
      if (line.text.trim() === '') continue;
      rows++;
      for (const key of Object.keys(ndjsonObject(path, line.text, line.line))) {
        if (fieldOf(key) === undefined && normalise(key) !== REASON_COLUMN) ignored.add(key);
      }
    }
    return {
      path,
      format: 'ndjson',
      text,
      header: '',
      eol: '\n',
      rows,
      columns: [],
      ignored: [...ignored],
      reasonColumn: false,
    };
  }
  let header: CsvRecord | undefined;
  let rows = 0;
  for await (const record of csvRecords(utf8Chunks(path, text), path)) {
    if (header) rows++;
    else header = record;
  }
  if (!header) {
    throw new RowFileError(
      `--file: ${path} is empty. Nothing was sent.`,
      'Give a CSV whose first line names the columns: to,text',
    );
  }
  return {
    path,
    format: 'csv',
    text,
    header: header.raw,
    eol: header.eol || '\n',
    rows,
    ...csvColumns(header.fields, path),
  };
}

/**
 * The rows of a file {@link openRows} read, streamed again from the disk in order: memory stays flat
 * whatever the file's size.
 *
 * @example
 * ```ts
 * for await (const row of readRows(file)) queue.push(row)
 * ```
 */
export async function* readRows(file: RowFile): AsyncGenerator<Row> {
  const text = utf8Chunks(file.path, file.text);
  if (file.format === 'ndjson') {
    for await (const line of ndjsonLines(text)) {
      if (line.text.trim() === '') continue;
      const fields: Partial<Record<RowField, string>> = {};
      for (const [key, value] of Object.entries(ndjsonObject(file.path, line.text, line.line))) {
        const field = fieldOf(key);
        if (field && value != null && value !== '') fields[field] = String(value);
      }
      yield { line: line.line, fields, raw: line.text, eol: line.eol };
    }
    return;
  }
  let first = true;
  for await (const record of csvRecords(text, file.path)) {
    if (first) {
      first = false;
      continue;
    }
    const fields: Partial<Record<RowField, string>> = {};
    record.fields.forEach((value, i) => {
      const field = file.columns[i];
      if (field && value !== '') fields[field] = value;
    });
    yield { line: record.line, fields, raw: record.raw, eol: record.eol };
  }
}
