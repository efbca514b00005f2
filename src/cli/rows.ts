import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse } from 'csv-parse/sync';
import { UsageError } from './exit-codes.js';

/** One row of a send-many file: its fields by column name, and its text as it was in the file. */
export interface Row {
  /** 1-based line (CSV: the record's first line) in the file, for messages. */
  readonly line: number;
  readonly fields: Readonly<Record<string, string>>;
  /** The row's own text, written back as it was to the failed, unknown or remaining rows' file. */
  readonly raw: string;
}

/** A send-many file read whole: its rows, and what goes before them when rows are written back. */
export interface RowFile {
  readonly format: 'csv' | 'ndjson';
  /** The CSV header line (with its line break), or '' for NDJSON. */
  readonly header: string;
  readonly rows: readonly Row[];
}

/**
 * Reads a CSV (with a header row) or NDJSON (one JSON object a line) file of messages: the format
 * by its extension, `.ndjson`/`.jsonl` or else CSV. Columns (or keys) are the `send` command's
 * options: `to`, one of `text`, `image`, `voice`, `document`, and optionally `from` and `caption`.
 *
 * @example
 * ```ts
 * const { rows } = await readRows('campaign.csv') // to,text\n+15557654321,Hello
 * ```
 */
export async function readRows(path: string): Promise<RowFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const ext = extname(path).toLowerCase();
  return ext === '.ndjson' || ext === '.jsonl' ? ndjsonRows(text) : csvRows(text, path);
}

function csvRows(text: string, path: string): RowFile {
  let records: { record: Record<string, string>; info: { lines: number }; raw: string }[];
  try {
    records = parse(text, { columns: true, skip_empty_lines: true, trim: true, info: true, raw: true });
  } catch (error) {
    throw new UsageError(`--file: ${path} is not valid CSV: ${(error as Error).message}`);
  }
  const header = text.slice(0, text.search(/\r?\n/) + 1 || text.length);
  const rows = records.map(({ record, info, raw }) => ({
    // info.lines is the record's last line; a record may span lines (a quoted line break).
    line: info.lines - (raw.replace(/\r?\n$/, '').match(/\n/g)?.length ?? 0),
    fields: record,
    raw: raw.replace(/\r?\n$/, ''),
  }));
  return { format: 'csv', header: header.endsWith('\n') ? header : `${header}\n`, rows };
}

function ndjsonRows(text: string): RowFile {
  const rows: Row[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    const fields: Record<string, string> = {};
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, field] of Object.entries(value)) if (field != null) fields[key] = String(field);
    } else fields['__invalid'] = 'not a JSON object';
    rows.push({ line: i + 1, fields, raw });
  }
  return { format: 'ndjson', header: '', rows };
}

/**
 * Rows written back in their file's format, as they were: fix them and feed the file back.
 *
 * @example
 * ```ts
 * await writeFile('campaign.failed.csv', rowsText(file, failed))
 * ```
 */
export function rowsText(file: RowFile, rows: readonly Row[]): string {
  return file.header + rows.map((row) => `${row.raw}\n`).join('');
}
