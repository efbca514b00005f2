import type { SendMessageParams } from 'tenant-messaging';
import { progressLine } from '../output/progress.js';
import { ROW_FIELDS } from '../rows/row-fields.js';
import { openRows, readRows } from '../rows/rows.js';
import { type QueuedRow, RowOutcomes } from '../run-files/row-outcomes.js';
import { lastLineOf } from '../run-files/row-tail.js';
import { rowText } from '../run-files/row-text.js';
import { SentJournal } from '../run-files/sent-journal.js';
import { batchExitCode, EXIT, SentThenError } from '../shell/exit-codes.js';
import { holdHeap } from '../shell/heap.js';
import { readerGone, type StopSignal, stopOf } from '../shell/interrupt.js';
import type { Context } from './messages.js';
import { stoppedBeforeSending, writeOnExit } from './send-many-exit.js';
import {
  checkNotInterrupted,
  checkWritable,
  completeChain,
  freshRecords,
  removeStale,
  rowSinks,
} from './send-many-files.js';
import { type SendManyFlags, sendManySettings } from './send-many-flags.js';
import { checkRow, reasonOf } from './send-many-row-check.js';
import { printSummary, type SendManySummary, secondsSince } from './send-many-summary.js';
import { track } from './send-many-track.js';

/**
 * `send-many --file <csv|ndjson>`: the file is read through once (encoding, syntax, header) before
 * any request, then streamed again, every row through `messages.sendMany` (bounded concurrency,
 * answers lost reconciled, nothing sent twice), with a progress bar on a terminal. Failed and
 * unknown rows are written back as they were, each with its reason in a last column, to files
 * beside the input, as they come and in the input's order; after a stop signal, the sends in
 * flight end and are recorded, nothing new starts, and the rows not attempted go to a third file.
 */
export async function sendMany(flags: SendManyFlags, { client, out, signal }: Context): Promise<number> {
  const { until, concurrency, rate, trackTimeout } = sendManySettings(flags);
  const started = Date.now();
  // Read through before any request (a stop signal meanwhile sends nothing): a file that cannot be
  // sent whole is refused before its first row is.
  const file = await openRows(flags.file);
  await checkWritable(flags.file);
  // Rows of an interrupted run of this file were sent: never again behind the caller's back.
  const journal = new SentJournal(flags.file);
  checkNotInterrupted(file, journal, flags.force === true);
  holdHeap();
  if (file.ignored.length > 0) {
    out.note(`Columns not read: ${file.ignored.join(', ')} (send-many reads ${ROW_FIELDS.join(', ')}).`);
  }
  if (signal.aborted) return stoppedBeforeSending(file, signal, started, out);
  // This run's records start empty: an earlier journal (complete, or --force) and remaining file are not its.
  freshRecords(file, journal);

  const sender = rate === undefined ? client : client.withOptions({ rateLimit: { requestsPerSecond: rate } });
  const sinks = rowSinks(file);
  const outcomes = new RowOutcomes(({ row, outcome, reason }) =>
    outcome === 'sent' || outcome === undefined
      ? undefined
      : sinks[outcome].write(rowText(file, row, outcome === 'remaining' ? undefined : reason)),
  );
  const counts = outcomes.counts;
  const bar =
    out.format === 'human'
      ? progressLine(
          '{bar} {value}/{total} | sent {sent} failed {failed} unknown {unknown} | ETA {eta_formatted}',
          file.rows,
          { sent: 0, failed: 0, unknown: 0 },
        )
      : undefined;
  const say = (text: string) => (bar ? bar.note(text) : out.note(text));
  const tick = () =>
    bar?.update(counts.sent + counts.failed + counts.unknown, {
      sent: counts.sent,
      failed: counts.failed,
      unknown: counts.unknown,
    });
  const refuse = (queued: QueuedRow, outcome: 'failed' | 'unknown', reason: string) => {
    outcomes.settle(queued, outcome, reason);
    say(`line ${queued.row.line}: ${outcome}: ${reason}`);
    tick();
  };

  const rows = readRows(file);
  /** Rows handed to sendMany, by its index, until their result comes. */
  const handed = new Map<number, QueuedRow>();
  let stopped = false;
  /** The last line of the file its reader has taken rows up to (the header's, for a CSV). */
  let readThrough = file.format === 'csv' ? 1 : 0;
  const read = (row: QueuedRow['row']) => {
    readThrough = lastLineOf(row, file.format);
    return outcomes.add(row);
  };
  const sentIds: number[] = [];
  let tracked: Awaited<ReturnType<typeof track>> | undefined;
  /** Every row attempted (none remains), stopped or not. */
  let attempted = false;
  /** And not stopped: nothing of this run or an earlier one is left to resume. */
  const done = () => attempted && !signal.aborted;
  /** What the run did so far: its summary at the end, or when the process must end at once. */
  /** The stop signal that came, as the summary names it: none when stdout's reader went away. */
  const stopSignal = (): { signal?: StopSignal } => {
    const stopped = signal.aborted ? stopOf(signal).signal : undefined;
    return stopped === undefined ? {} : { signal: stopped };
  };
  const summaryNow = (): SendManySummary => ({
    rows: file.rows,
    sent: counts.sent,
    failed: counts.failed,
    unknown: counts.unknown,
    // Ending at once, the file's tail is copied to the remaining file uncounted: every row not otherwise settled.
    remaining: atOnce ? file.rows - counts.sent - counts.failed - counts.unknown : counts.remaining,
    interrupted: signal.aborted,
    ...stopSignal(),
    ...(tracked ? { tracked } : {}),
    seconds: secondsSince(started),
    log_ids: sentIds,
    files: {
      ...Object.fromEntries(
        Object.entries(sinks)
          .filter(([, sink]) => sink.rows > 0)
          .map(([kind, sink]) => [kind, sink.path]),
      ),
      // The rows sent and their log ids, kept while the run is not complete.
      ...(done() || journal.rows === 0 ? {} : { sent: journal.path }),
    },
  });
  // A second stop signal ends the process at once (exit 128 + n), whenever it comes before the
  // summary: what the run holds is written first (unless it was), then the summary so far.
  let recorded = false;
  let atOnce = false;
  const atExit = () => {
    atOnce = !recorded;
    if (!recorded) writeOnExit(file, { outcomes, handed, sinks, journal, readThrough });
    recorded = true;
    printSummary(summaryNow(), out);
  };
  process.once('exit', atExit);
  // One reader of the file at a time: sendMany may give up on a read in progress when it stops,
  // and the rows not attempted are read after it; this chain keeps those reads in order.
  let reads: Promise<unknown> = Promise.resolve();
  const serially = <T>(task: () => Promise<T>): Promise<T> => {
    const run = reads.then(task);
    reads = run.catch(() => undefined);
    return run;
  };
  /** The next row that passes the checks (refused ones recorded on the way), or none once stopped. */
  const nextSendable = async (): Promise<{ queued: QueuedRow; params: SendMessageParams } | undefined> => {
    for (;;) {
      if (stopped || signal.aborted) return undefined;
      const next = await rows.next();
      if (next.done) return undefined;
      const queued = read(next.value);
      if (stopped || signal.aborted) return undefined; // read as the batch stopped: not attempted
      const checked = checkRow(next.value, flags.from);
      if ('params' in checked) return { queued, params: checked.params };
      refuse(queued, 'failed', checked.reason);
      await outcomes.flush();
    }
  };
  async function* source(): AsyncGenerator<SendMessageParams> {
    for (let index = 0; ; index++) {
      const next = await serially(nextSendable);
      if (next === undefined) return;
      handed.set(index, next.queued);
      yield next.params;
    }
  }

  let failure: { error: unknown } | undefined;
  /** What failed once the sends had ended (writing the rows' files, the tracking): the summary still comes first. */
  let afterwards: { error: unknown } | undefined;
  try {
    try {
      for await (const result of sender.messages.sendMany(source(), { concurrency, signal })) {
        const queued = handed.get(result.index) as QueuedRow;
        handed.delete(result.index);
        if (result.status === 'sent') {
          journal.record(queued.row.line, result.log.id);
          outcomes.settle(queued, 'sent');
          sentIds.push(result.log.id);
          // --ndjson: each sent row's log id as it comes, so that a run cut short still told it.
          if (out.format === 'ndjson')
            out.value({ line: queued.row.line, status: 'sent', id: result.log.id }, () => '');
          tick();
        } else refuse(queued, result.status, reasonOf(result.error));
        await outcomes.flush();
      }
    } catch (error) {
      if (!signal.aborted) failure = { error };
    }
    stopped = true;
    await serially(async () => {
      // sendMany yields every send it started before it stops: a row without an outcome was never sent.
      for (const queued of outcomes.unsettled()) outcomes.settle(queued, 'remaining');
      await outcomes.flush();
      if (!signal.aborted || failure) return;
      for (let next = await rows.next(); !next.done; next = await rows.next()) {
        outcomes.settle(read(next.value), 'remaining');
        await outcomes.flush();
      }
    });
  } catch (error) {
    afterwards = { error };
  } finally {
    bar?.stop();
    await rows.return(undefined);
    // A file that cannot be written (a full disk) is reported after the summary, not instead of it.
    const closed = await Promise.allSettled(Object.values(sinks).map((sink) => sink.close()));
    for (const close of closed) if (close.status === 'rejected') afterwards ??= { error: close.reason };
    recorded = true;
  }
  // The records are removed only once the summary was said, and not after a stop (one while
  // --track follows: a rerun would send every row again).
  attempted = !failure && sinks.remaining.rows === 0;
  if (until !== undefined && !signal.aborted && !failure && !afterwards && sentIds.length > 0) {
    try {
      tracked = await track(sender, sentIds, until, trackTimeout, out, signal);
    } catch (error) {
      // The tracking failed, not the sends: the summary is still printed, then the error (exit 5).
      afterwards = { error };
    }
  }
  const summary = summaryNow();
  // Stdout's reader gone: the records say what was sent; a summary would go nowhere, or to stderr unasked.
  const quiet = readerGone(signal);
  if (!quiet) printSummary(summary, out);
  process.off('exit', atExit);
  if (done()) removeStale(file, journal, sentIds.length);
  else if (attempted) completeChain(file.path, sentIds.length); // stopped with nothing left: its journal stays
  const stop = signal.aborted && !quiet ? stopOf(signal) : undefined;
  // The documented order (2, 128 + n, 3, 1, 5, 0) holds when something also failed: a stop, rows
  // unknown or refused say more than "sent", which is what an error after rows were sent adds.
  const code = batchExitCode({
    interrupted: stop?.exitCode,
    unknown: summary.unknown,
    failed: summary.failed,
    unconfirmed: (tracked?.failed ?? 0) + (tracked?.timeout ?? 0),
  });
  if (failure || afterwards) {
    const error = failure
      ? new Error(
          `send-many stopped before the end of ${file.path}: the rows after the last one counted were not read`,
          { cause: failure.error },
        )
      : afterwards?.error;
    // Rows were sent before it: the exit code is never the bare error's "failed" (1) when it would
    // otherwise be 0, which invites sending the whole file again: it is "sent" (5) then.
    throw sentIds.length > 0 ? new SentThenError(sentIds, error, code === EXIT.ok ? EXIT.sent : code) : error;
  }
  return code;
}
