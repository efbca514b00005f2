/** A CSV file's header: the field each column gives, and the refusal of a header that is ambiguous or short. */

import { fieldOf, normalise, REASON_COLUMN, type RowField } from './row-fields.js';
import { RowFileError } from './row-file-error.js';

/** What a CSV header says about its columns. */
export interface CsvColumns {
  /** The field each column gives, by position (undefined: a column send-many does not read). */
  readonly columns: readonly (RowField | undefined)[];
  /** Columns send-many does not read, as the header names them. */
  readonly ignored: readonly string[];
  /** The header's last column is {@link REASON_COLUMN} (a failed rows' file sent again). */
  readonly reasonColumn: boolean;
}

/** The header's columns: each one's field, those ignored, and refusals of what is ambiguous. */
export function csvColumns(names: readonly string[], path: string): CsvColumns {
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
