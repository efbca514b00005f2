/** Rows written back as they were read, byte for byte, with the reason they were not sent added last. */
import { REASON_COLUMN } from '../rows/row-fields.js';
import type { Row, RowFile } from '../rows/rows.js';

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
