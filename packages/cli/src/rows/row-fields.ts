/**
 * The fields send-many reads from a row, the other names their columns go by, and the column it
 * writes a refused row's reason in.
 */

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

/** `To Phone` -> `to_phone`: how column names are compared. */
export const normalise = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/** The field a column or key name gives, if send-many reads it. */
export function fieldOf(name: string): RowField | undefined {
  const key = normalise(name);
  return (ROW_FIELDS as readonly string[]).includes(key) ? (key as RowField) : ALIASES[key];
}
