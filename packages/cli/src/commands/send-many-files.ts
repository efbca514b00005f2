/**
 * The files send-many writes beside its input: the failed, unknown and remaining rows, each as
 * `<file>.<kind>.<ext>`, in the input's encoding and with its header.
 */
import { access, constants } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from '../exit-codes.js';
import { RowSink } from '../row-sink.js';
import { headText } from '../row-text.js';
import type { RowFile } from '../rows.js';

/** The row files of a run, by the outcome of the rows each takes. */
export type RowSinks = Record<'failed' | 'unknown' | 'remaining', RowSink>;

/**
 * The row files beside `file` (each made once its first row comes): the failed and unknown rows'
 * header with the reason column added, the remaining rows' as it was.
 *
 * @example
 * ```ts
 * rowSinks(file).failed.path // 'campaign.failed.csv'
 * ```
 */
export function rowSinks(file: RowFile): RowSinks {
  return {
    failed: new RowSink(siblingPath(file.path, 'failed'), headText(file, true), file.text.encoding),
    unknown: new RowSink(siblingPath(file.path, 'unknown'), headText(file, true), file.text.encoding),
    remaining: new RowSink(siblingPath(file.path, 'remaining'), headText(file, false), file.text.encoding),
  };
}

/** The failed and unknown rows' files are made beside the input: a directory that refuses them is found before any request. */
export async function checkWritable(path: string): Promise<void> {
  try {
    await access(dirname(path), constants.W_OK);
  } catch {
    throw new UsageError(
      `--file: cannot write beside ${path} (${dirname(path)} is not writable): the failed, unknown and remaining rows are written there`,
    );
  }
}

/** `campaign.csv` -> `campaign.failed.csv`. */
function siblingPath(path: string, kind: string): string {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') ? `${path.slice(0, dot)}.${kind}${path.slice(dot)}` : `${path}.${kind}`;
}
