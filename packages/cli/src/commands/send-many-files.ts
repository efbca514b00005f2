/**
 * The files send-many writes beside its input: the failed, unknown and remaining rows, each as
 * `<file>.<kind>.<ext>`, in the input's encoding and with its header.
 */
import { existsSync, rmSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from '../exit-codes.js';
import { RowSink } from '../row-sink.js';
import { headText } from '../row-text.js';
import type { RowFile } from '../rows.js';
import { SentJournal } from '../sent-journal.js';
import { siblingPath } from '../sibling-path.js';

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

/**
 * Refuses, before any request, a file whose earlier run was interrupted (its journal of rows sent
 * is still there, or its remaining rows' file): sending it whole again would send those rows twice.
 * Says which file to send instead; `--force` sends it whole anyway.
 */
export function checkNotInterrupted(file: RowFile, journal: SentJournal, force: boolean): void {
  const remaining = siblingPath(file.path, 'remaining');
  const left = [
    ...(journal.existsNow() && !journal.isComplete() ? [journal.path] : []),
    ...(existsSync(remaining) ? [remaining] : []),
  ];
  if (force || left.length === 0) return;
  const goOn = existsSync(remaining)
    ? `Send ${remaining} to go on (the rows the run did not attempt)`
    : 'Look at the rows it sent before sending any again';
  throw new UsageError(
    `--file: an earlier run of ${file.path} was interrupted and left ${left.join(' and ')}: its rows sent are listed in ${journal.path}. ${goOn}; --force sends ${file.path} whole again (the rows already sent would go twice). Nothing was sent.`,
  );
}

/**
 * After a complete run: its journal, and a remaining rows' file an earlier interrupted run left.
 * When the file sent was itself an interrupted run's remaining rows (`campaign.remaining.csv`), the
 * campaign is complete too: that file, every row of it now sent, is removed (kept, it would invite
 * a second send), and the campaign's journal is marked complete, its log ids kept.
 */
export function removeStale(file: RowFile, journal: SentJournal, sent: number): void {
  journal.remove();
  rmSync(siblingPath(file.path, 'remaining'), { force: true });
  const parent = /^(.*)\.remaining(\.[^./]+)?$/.exec(file.path);
  if (!parent) return;
  const campaign = `${parent[1]}${parent[2] ?? ''}`;
  new SentJournal(campaign).complete(file.path, sent);
  rmSync(file.path, { force: true });
}
