import { extname } from 'node:path';
import { RowFileError, readTextForm, type TextForm, utf8Chunks } from './file-text.js';
import { type CsvRecord, csvRecords, ndjsonLines } from './row-records.js';

/** The fields of a row that send-many reads, named as `send`'s options. */
export const ROW_FIELDS = Object.freeze(['to', 'from', 'text', 'image', 'voice', 'document', 'caption'] as const);

/** One of {@link ROW_FIELDS}. */
export type RowField = (typeof ROW_FIELDS)[number];

/** Other names people give these columns (the API's own): each is the same field as its target. */
const ALIASES: Readonly<Record<string, RowField>> = Object.freeze({
  to_phone: 'to',
  sender_phone: 'from',
  sender_number_id: 'from',
});

/**
 * The column (NDJSON: the key) send-many writes the reason for a refused or unknown row in, last on
 * each line of the failed and unknown rows' files. Ignored when such a file is sent again.
 */
export const REASON_COLUMN = 'send_error';

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

/** `To Phone` -> `to_phone`: how column names are compared. */
const normalise = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/** The field a column or key name gives, if send-many reads it. */
function fieldOf(name: string): RowField | undefined {
  const key = normalise(name);
  return (ROW_FIELDS as readonly string[]).includes(key) ? (key as RowField) : ALIASES[key];
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

/**
 * What goes before the rows when they are written back: the byte-order mark if the file had one,
 * and the CSV's header line, as it was, with {@link REASON_COLUMN} last when `withReason`.
 *
 * @example
 * ```ts
 * headText(file, true) // 'to,text,send_error\n'
 * ```
 */
export function headText(file: RowFile, withReason: boolean): string {
  const bom = file.text.bom ? '\uFEFF' : '';
  if (file.format === 'ndjson') return bom;
  return `${bom}${file.header}${withReason && !file.reasonColumn ? `,${REASON_COLUMN}` : ''}${file.eol}`;
}

/**
 * A row written back: as it was, byte for byte, with its own line break; with `reason`, followed by
 * it (CSV: one more field, in place of the old reason if the file had a {@link REASON_COLUMN};
 * NDJSON: one more key before the closing brace).
 *
 * @example
 * ```ts
 * rowText(file, row, 'ValidationError: to_phone: must not be blank') // '+1555,"hi","ValidationError: ..."\n'
 * ```
 */
export function rowText(file: RowFile, row: Row, reason?: string): string {
  const eol = row.eol || file.eol;
  if (reason === undefined) return `${row.raw}${eol}`;
  const oneLine = reason.replace(/\s*[\r\n]+\s*/g, ' ');
  if (file.format === 'csv') {
    const field = `"${oneLine.replaceAll('"', '""')}"`;
    return `${file.reasonColumn ? `${row.raw.slice(0, lastFieldStart(row.raw))}${field}` : `${row.raw},${field}`}${eol}`;
  }
  const value = JSON.parse(row.raw) as Record<string, unknown>;
  if (REASON_COLUMN in value || Object.keys(value).length === 0) {
    return `${JSON.stringify({ ...value, [REASON_COLUMN]: oneLine })}${eol}`;
  }
  const close = row.raw.lastIndexOf('}');
  return `${row.raw.slice(0, close)},${JSON.stringify(REASON_COLUMN)}:${JSON.stringify(oneLine)}${row.raw.slice(close)}${eol}`;
}

/** Where a CSV line's last field starts (after the last comma outside quotes). */
function lastFieldStart(line: string): number {
  let quoted = false;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted) start = i + 1;
  }
  return start;
}

/** The header's columns: each one's field, those ignored, and refusals of what is ambiguous. */
function csvColumns(names: readonly string[], path: string): Pick<RowFile, 'columns' | 'ignored' | 'reasonColumn'> {
  const columns = names.map(fieldOf);
  const ignored: string[] = [];
  const byKey = new Map<string, number[]>();
  names.forEach((name, i) => {
    const key = normalise(name);
    if (key === '') return; // an unnamed column (Excel leaves some): not read
    if (columns[i] === undefined && key !== REASON_COLUMN) ignored.push(name);
    const group = columns[i] ?? key;
    byKey.set(group, [...(byKey.get(group) ?? []), i]);
  });
  const clashes = [...byKey].filter(([, at]) => at.length > 1);
  if (clashes.length > 0) {
    const said = clashes.map(([key, at]) => {
      const spelled = new Set(at.map((i) => normalise(names[i] ?? '')));
      if (spelled.size === 1)
        return `"${names[at[0] as number]}" ${at.length === 2 ? 'twice' : `${at.length} times`} (columns ${at.map((i) => i + 1).join(' and ')})`;
      return `${at.map((i) => `"${names[i]}" (column ${i + 1})`).join(' and ')}, which are the same field, ${key}`;
    });
    throw new RowFileError(
      `--file: ${path}: the header names the same column more than once: ${said.join('; ')}. Nothing was sent.`,
      'Keep one column per field (delete or rename the others): send-many does not guess which one is meant.',
    );
  }
  const reasonAt = names.findIndex((name) => normalise(name) === REASON_COLUMN);
  if (reasonAt !== -1 && reasonAt !== names.length - 1) {
    throw new RowFileError(
      `--file: ${path}: the ${REASON_COLUMN} column is column ${reasonAt + 1} of ${names.length}. Nothing was sent.`,
      `send-many writes ${REASON_COLUMN} as the last column of the rows it writes back: keep it last, or delete it.`,
    );
  }
  const has = (fields: readonly RowField[]) => columns.some((field) => field !== undefined && fields.includes(field));
  const missing = !has(['to'])
    ? '"to"'
    : !has(['text', 'image', 'voice', 'document'])
      ? 'text, image, voice or document'
      : undefined;
  if (missing) {
    const listed = names.map((name) => `"${name}"`).join(', ');
    const separated = names.length === 1 && /[;\t]/.test(names[0] ?? '');
    throw new RowFileError(
      `--file: ${path}: the header has no ${missing} column (its columns: ${listed}). Nothing was sent.`,
      separated
        ? 'send-many reads comma-separated values, and this header looks separated by semicolons or tabs: save the file as "CSV UTF-8 (Comma delimited)".'
        : 'The first line names the columns: to, one of text, image, voice or document, and optionally from and caption.',
    );
  }
  return { columns, ignored, reasonColumn: reasonAt !== -1 };
}

/** An NDJSON line as the object it must be, with no field given twice (two keys, or a key and its alias). */
function ndjsonObject(path: string, text: string, line: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    value = error;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Error) {
    throw new RowFileError(
      `--file: ${path} line ${line} is not a JSON object${value instanceof Error ? ` (${value.message})` : ''}. Nothing was sent.`,
      'Each line of an NDJSON file is one object: {"to":"+15557654321","text":"Hello"}',
    );
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).filter((key) => fieldOf(key) !== undefined);
  // JSON.parse keeps the last of two equal keys without a word: count them in the text itself.
  const twice = keys.filter((key) => (text.match(keyPattern(key))?.length ?? 0) > 1);
  const byField = new Map<RowField, string[]>();
  for (const key of keys)
    byField.set(fieldOf(key) as RowField, [...(byField.get(fieldOf(key) as RowField) ?? []), key]);
  const aliased = [...byField].filter(([, named]) => named.length > 1);
  if (twice.length > 0 || aliased.length > 0) {
    const said = [
      ...twice.map((key) => `the key "${key}" twice`),
      ...aliased.map(([field, named]) => `${named.map((key) => `"${key}"`).join(' and ')}, which are both "${field}"`),
    ];
    throw new RowFileError(
      `--file: ${path} line ${line} has ${said.join(', and ')}. Nothing was sent.`,
      'Give each field once per line: send-many does not guess which one is meant.',
    );
  }
  return object;
}

const keyPatterns = new Map<string, RegExp>();

/** Where `"key":` stands as a key in a JSON text (escaped quotes inside strings do not match). */
function keyPattern(key: string): RegExp {
  let pattern = keyPatterns.get(key);
  if (!pattern) {
    pattern = new RegExp(`[{,]\\s*${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`, 'g');
    keyPatterns.set(key, pattern);
  }
  return pattern;
}
