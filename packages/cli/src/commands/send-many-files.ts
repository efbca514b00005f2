/**
 * The files send-many writes beside its input: the failed, unknown and remaining rows, each as
 * `<file>.<kind>.<ext>`, in the input's encoding and with its header.
 */
import { existsSync, rmSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RowFile } from '../rows/rows.js';
import { RowSink } from '../run-files/row-sink.js';
import { headText } from '../run-files/row-text.js';
import { SentJournal } from '../run-files/sent-journal.js';
import { siblingPath } from '../run-files/sibling-path.js';
import { UsageError } from '../shell/exit-codes.js';

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
 * is still there, not marked complete, or its remaining rows' file): sending it whole again would
 * send those rows twice. Says which file to send instead (the deepest of a chain: a remaining file
 * whose own run was stopped left one too); `--force` sends it whole anyway.
 */
export function checkNotInterrupted(file: RowFile, journal: SentJournal, force: boolean): void {
  const remaining = siblingPath(file.path, 'remaining');
  const left = [
    ...(journal.existsNow() && !journal.isComplete() ? [journal.path] : []),
    ...(existsSync(remaining) ? [remaining] : []),
  ];
  if (force || left.length === 0) return;
  const next = toGoOn(file.path);
  const goOn = next
    ? `Send ${next} to go on (the rows not attempted yet)`
    : 'Every row was attempted: look at the rows it sent before sending any again';
  throw new UsageError(
    `--file: an earlier run of ${file.path} was interrupted and left ${left.join(' and ')}: its rows sent are listed in ${journal.path}. ${goOn}; --force sends ${file.path} whole again (the rows already sent would go twice). Nothing was sent.`,
  );
}

/**
 * The file that holds the rows an interrupted run of `path` did not attempt, following a chain of
 * them; none when the last run of the chain was stopped with every row attempted.
 */
function toGoOn(path: string): string | undefined {
  let next = siblingPath(path, 'remaining');
  if (!existsSync(next)) return undefined;
  for (let deeper = siblingPath(next, 'remaining'); existsSync(deeper); deeper = siblingPath(deeper, 'remaining')) {
    next = deeper;
  }
  const its = new SentJournal(next);
  return its.existsNow() && !its.isComplete() ? undefined : next;
}

/** The file `path` holds the remaining rows of (`a.remaining.csv` -> `a.csv`), if its name says so. */
function campaignOf(path: string): string | undefined {
  const parent = /^(.*)\.remaining(\.[^./]+)?$/.exec(path);
  return parent ? `${parent[1]}${parent[2] ?? ''}` : undefined;
}

/**
 * Before a run's first send: its records start empty. What an earlier run left (a journal marked
 * complete, or, with `--force`, an interrupted run's journal and remaining file) is not this run's:
 * kept, this run's rows would mix with it, and the remaining file would name rows this run sent.
 */
export function freshRecords(file: RowFile, journal: SentJournal): void {
  journal.remove();
  // Down a chain too: a remaining file's own run left one (`a.remaining.remaining.csv`).
  for (let next = siblingPath(file.path, 'remaining'); existsSync(next); next = siblingPath(next, 'remaining')) {
    rmSync(next, { force: true });
  }
}

/**
 * After a complete run, once its summary was said: its journal, and a remaining rows' file an
 * earlier run left. When the file sent was itself an interrupted run's remaining rows
 * (`campaign.remaining.csv`), that campaign is complete too: the file, every row of it attempted,
 * is removed (kept, it would invite a second send) and the campaign's journal marked complete, its
 * log ids kept; and so on up a chain (`campaign.remaining.remaining.csv`).
 */
export function removeStale(file: RowFile, journal: SentJournal, sent: number): void {
  journal.remove();
  rmSync(siblingPath(file.path, 'remaining'), { force: true });
  completeChain(file.path, sent);
}

/**
 * Every row of `path` was attempted (a complete run, or one stopped with nothing left): if it is an
 * interrupted run's remaining rows, that run's campaign is complete, and so on up the chain.
 */
export function completeChain(path: string, sent: number): void {
  for (let done = path, up = campaignOf(done); up !== undefined; done = up, up = campaignOf(up)) {
    const campaign = new SentJournal(up);
    // Neither the campaign's file nor its journal: a name of the user's, not a run's remaining rows.
    if ((!existsSync(up) && !campaign.existsNow()) || campaign.isComplete()) return;
    campaign.complete(done, sent);
    rmSync(done, { force: true });
  }
}
