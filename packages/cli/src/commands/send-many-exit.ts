/**
 * The ends of a send-many run outside its loop: a stop signal before the first row was sent, and
 * the process ending at once (a second stop signal), whose `exit` handler writes what the run
 * holds synchronously before it goes.
 */

import type { RowFile } from '../rows/rows.js';
import type { QueuedRow, RowOutcomes } from '../run-files/row-outcomes.js';
import { tailAfter } from '../run-files/row-tail.js';
import type { SentJournal } from '../run-files/sent-journal.js';
import { EXIT } from '../shell/exit-codes.js';
import { ReaderGoneError, signalLabel, stopOf } from '../shell/interrupt.js';
import type { Context } from './messages.js';
import type { rowSinks } from './send-many-files.js';
import { printSummary, secondsSince } from './send-many-summary.js';

/** A stop signal came before the first row was sent: nothing was, and the input itself is what remains. */
export function stoppedBeforeSending(file: RowFile, signal: AbortSignal, started: number, out: Context['out']): number {
  const stop = stopOf(signal);
  // Stdout's reader gone before any row was sent: nothing was, and nothing is said.
  if (stop instanceof ReaderGoneError) return EXIT.ok;
  const text = `Interrupted (${signalLabel(stop.signal)}) before any row was sent: nothing was sent. Send ${file.path} again to go on.`;
  printSummary(
    {
      rows: file.rows,
      sent: 0,
      failed: 0,
      unknown: 0,
      remaining: file.rows,
      interrupted: true,
      signal: stop.signal,
      seconds: secondsSince(started),
      log_ids: [],
      files: { remaining: file.path },
    },
    out,
    text,
  );
  return stop.exitCode;
}

/** What a run holds when the process must end at once. */
export interface Held {
  readonly outcomes: RowOutcomes;
  readonly handed: ReadonlyMap<number, QueuedRow>;
  readonly sinks: ReturnType<typeof rowSinks>;
  readonly journal: SentJournal;
  readonly readThrough: number;
}

/**
 * The records of a run the process ends at once (a second stop signal), written synchronously from
 * its `exit` handler: the sends in flight as unknown (they may have been sent), the rows read but
 * not handed over and the file's tail as remaining, the sent rows already in the journal; then one
 * line on stderr that says where each went.
 */
export function writeOnExit(file: RowFile, held: Held): void {
  const { outcomes, handed, sinks, journal } = held;
  const inFlight = new Set(handed.values());
  for (const queued of outcomes.unsettled()) {
    if (inFlight.has(queued)) outcomes.settle(queued, 'unknown', STOPPED_IN_FLIGHT);
    else outcomes.settle(queued, 'remaining');
  }
  // First what only this process knows (the sends in flight, the rows read): each sink on its own.
  void outcomes.flush(); // synchronous: the sinks write as they are given rows
  for (const sink of Object.values(sinks)) {
    try {
      sink.flushSync();
    } catch (error) {
      process.stderr.write(`send-many: could not write ${sink.path} before stopping: ${String(error)}\n`);
    }
  }
  // Then the rows not read yet, from the file (gone, unreadable or too large: said, with where to resume).
  let tailLost = false;
  try {
    const tail = tailAfter(file, held.readThrough);
    if (/\S/.test(tail)) {
      sinks.remaining.write(tail.endsWith('\n') || tail.endsWith('\r') ? tail : `${tail}${file.eol}`);
      sinks.remaining.flushSync();
    }
  } catch (error) {
    tailLost = true;
    process.stderr.write(
      `send-many: could not copy the rows after line ${held.readThrough} of ${file.path} (${String(error)}): they were not attempted; ${sinks.remaining.path} lacks them.\n`,
    );
  }
  const where = [
    journal.rows > 0 ? `${journal.rows} sent (their log ids: ${journal.path})` : 'none sent',
    sinks.unknown.rows > 0 ? `may have been sent: ${sinks.unknown.path}` : undefined,
    sinks.remaining.rows > 0 ? `not attempted: ${sinks.remaining.path}` : undefined,
  ].filter(Boolean);
  const next =
    sinks.remaining.rows > 0 && !tailLost
      ? ` Send ${sinks.remaining.path} to go on.`
      : tailLost
        ? ` The rows after line ${held.readThrough} of ${file.path} were not attempted.`
        : '';
  process.stderr.write(`Stopped at once: ${where.join('; ')}.${next}\n`);
}

const STOPPED_IN_FLIGHT =
  'stopped at once (a second stop signal) while it was being sent: it may have been sent; look for it with list before sending it again';
