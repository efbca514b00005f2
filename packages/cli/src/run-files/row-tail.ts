/**
 * The rows of a send-many file after a given line, as text, read synchronously: what remains when
 * the process must end at once (a second stop signal), from its `exit` handler, where the rows'
 * reader (a stream) can no longer run. Rows are read in order, so the rows not read yet are the
 * file's tail from the line after the last one read.
 */
import { readFileSync } from 'node:fs';
import type { RowFile } from '../rows/rows.js';

/** Line breaks as each format's reader counts them (row-records.ts): CSV's three, NDJSON's two. */
const BREAKS = { csv: /\r\n|\n|\r/g, ndjson: /\r?\n/g } as const;

/**
 * The text of `file` after its line `lastLine` (1-based; 0: the whole text), decoded as the file
 * is stored, its byte-order mark left out.
 *
 * @example
 * ```ts
 * tailAfter(file, 41) // the rows from line 42 on, as they were
 * ```
 */
export function tailAfter(file: RowFile, lastLine: number): string {
  const bytes = readFileSync(file.path);
  const text = new TextDecoder(file.text.encoding).decode(bytes);
  if (lastLine <= 0) return text;
  const breaks = new RegExp(BREAKS[file.format].source, 'g');
  let seen = 0;
  for (let found = breaks.exec(text); found !== null; found = breaks.exec(text)) {
    if (++seen === lastLine) return text.slice(found.index + found[0].length);
  }
  return '';
}

/** The line a row ends on: the line it starts on, and the breaks inside its text (a quoted CSV field's). */
export function lastLineOf(row: { readonly line: number; readonly raw: string }, format: RowFile['format']): number {
  return row.line + (row.raw.match(new RegExp(BREAKS[format].source, 'g'))?.length ?? 0);
}
