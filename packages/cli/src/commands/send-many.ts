import { access, constants } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SendMessageParams } from 'tenant-messaging';
import { parseCount, parseDuration } from '../duration.js';
import { batchExitCode, UsageError } from '../exit-codes.js';
import { holdHeap } from '../heap.js';
import { InterruptedError, type StopSignal, signalLabel } from '../interrupt.js';
import { progressLine } from '../progress.js';
import { type QueuedRow, RowOutcomes } from '../row-outcomes.js';
import { RowSink } from '../row-sink.js';
import { headText, openRows, REASON_COLUMN, ROW_FIELDS, type Row, type RowFile, readRows, rowText } from '../rows.js';
import { type Context, sendParamsOf } from './messages.js';
import { track } from './send-many-track.js';

export interface SendManyFlags {
  readonly file: string;
  readonly from?: string;
  readonly concurrency: string;
  readonly rate?: string;
  /** Follow the sent messages to delivered (true, 'delivered') or read. */
  readonly track?: string | boolean;
  readonly trackTimeout: string;
}

/** What a send-many run did: the summary on stderr, or with `--json`/`--ndjson` the one document on stdout. */
export interface SendManySummary {
  rows: number;
  sent: number;
  /** Refused (by the checks or the API): safe to fix and send again. */
  failed: number;
  /** May have been sent: reconcile before sending again. */
  unknown: number;
  /** Not attempted (a stop signal came first). */
  remaining: number;
  interrupted: boolean;
  /** The stop signal that came (SIGINT, SIGTERM or SIGHUP), when interrupted. */
  signal?: StopSignal;
  /** With --track: how the sent messages ended. */
  tracked?: { reached: number; timeout: number; failed: number };
  seconds: number;
  /**
   * The files the failed, unknown and remaining rows were written to; `remaining` is the input
   * file itself when the stop came before any row was sent.
   */
  files: Record<string, string>;
}

type Sinks = Record<'failed' | 'unknown' | 'remaining', RowSink>;

/**
 * The end of `send-many --help`: the files it reads and writes, stop signals, and its exit code.
 *
 * @example
 * ```ts
 * command.addHelpText('after', SEND_MANY_HELP)
 * ```
 */
export const SEND_MANY_HELP = `
The file: CSV with a header row, or NDJSON (.ndjson, .jsonl: one object a line). UTF-8, with or
without the byte-order mark Excel's "CSV UTF-8" writes, or UTF-16 with its mark. Columns (keys):
to, one of text, image, voice, document (a path), and optionally from and caption; to_phone,
sender_phone and sender_number_id are read as to and from. A file that is not valid text (a
Latin-1 export, say: the line and byte offset are named), is not valid CSV, or names a field
twice (to,text,to) is refused before any request, with exit code 2.

Failed rows go to <file>.failed.<ext> and rows whose outcome is unknown to <file>.unknown.<ext>,
each as it was, with its reason added as a last column, ${REASON_COLUMN} (NDJSON: a key). Fix the
failed rows and send that file (${REASON_COLUMN} is not read); reconcile the unknown ones first.
Ctrl-C, SIGTERM or SIGHUP: the sends in flight finish and are recorded, nothing new starts, and
the rows not attempted go to <file>.remaining.<ext> (send it to go on: no row is sent twice).
The summary goes to stderr; with --json, it is the one JSON document on stdout.

Exit code, the first that applies: 128 + the signal's number when interrupted (130 Ctrl-C, 143
SIGTERM, 129 SIGHUP); 3 some rows' outcome is unknown; 1 rows refused, or with --track a delivery
failed or could not be followed; 4 with --track, deliveries timed out; 0 every row sent (and
tracked). Bad usage (2) is found before any request.

Example:
  $ tenant-messaging send-many --file campaign.csv --from +15550001001 --concurrency 8 --rate 20/s`;

/**
 * `send-many --file <csv|ndjson>`: the file is read through once (encoding, syntax, header) before
 * any request, then streamed again, every row through `messages.sendMany` (bounded concurrency,
 * answers lost reconciled, nothing sent twice), with a progress bar on a terminal. Failed and
 * unknown rows are written back as they were, each with its reason in a last column, to files
 * beside the input, as they come and in the input's order; after a stop signal, the sends in
 * flight end and are recorded, nothing new starts, and the rows not attempted go to a third file.
 */
export async function sendMany(flags: SendManyFlags, { client, out, signal }: Context): Promise<number> {
  const until = trackedStatus(flags.track);
  const concurrency = parseCount(flags.concurrency, '--concurrency');
  const rate = flags.rate === undefined ? undefined : parseRate(flags.rate);
  const trackTimeout = until === undefined ? 0 : parseDuration(flags.trackTimeout, '--track-timeout');
  const started = Date.now();
  // Read through before any request (a stop signal meanwhile sends nothing): a file that cannot be
  // sent whole is refused before its first row is.
  const file = await openRows(flags.file);
  await checkWritable(flags.file);
  holdHeap();
  if (file.ignored.length > 0) {
    out.note(`Columns not read: ${file.ignored.join(', ')} (send-many reads ${ROW_FIELDS.join(', ')}).`);
  }
  if (signal.aborted) return stoppedBeforeSending(file, signal, started, out);

  const sender = rate === undefined ? client : client.withOptions({ rateLimit: { requestsPerSecond: rate } });
  const sinks: Sinks = {
    failed: new RowSink(siblingPath(file.path, 'failed'), headText(file, true), file.text.encoding),
    unknown: new RowSink(siblingPath(file.path, 'unknown'), headText(file, true), file.text.encoding),
    remaining: new RowSink(siblingPath(file.path, 'remaining'), headText(file, false), file.text.encoding),
  };
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
      const queued = outcomes.add(next.value);
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
  const sentIds: number[] = [];
  try {
    try {
      for await (const result of sender.messages.sendMany(source(), { concurrency, signal })) {
        const queued = handed.get(result.index) as QueuedRow;
        handed.delete(result.index);
        if (result.status === 'sent') {
          outcomes.settle(queued, 'sent');
          if (until !== undefined) sentIds.push(result.log.id);
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
        outcomes.settle(outcomes.add(next.value), 'remaining');
        await outcomes.flush();
      }
    });
  } finally {
    bar?.stop();
    await rows.return(undefined);
    await Promise.all(Object.values(sinks).map((sink) => sink.close()));
  }
  const tracked =
    until === undefined || signal.aborted || failure || sentIds.length === 0
      ? undefined
      : await track(sender, sentIds, until, trackTimeout, out, signal);
  const stop = signal.aborted ? stopOf(signal) : undefined;
  const summary: SendManySummary = {
    rows: file.rows,
    sent: counts.sent,
    failed: counts.failed,
    unknown: counts.unknown,
    remaining: counts.remaining,
    interrupted: stop !== undefined,
    ...(stop ? { signal: stop.signal } : {}),
    ...(tracked ? { tracked } : {}),
    seconds: secondsSince(started),
    files: Object.fromEntries(
      Object.entries(sinks)
        .filter(([, sink]) => sink.rows > 0)
        .map(([kind, sink]) => [kind, sink.path]),
    ),
  };
  printSummary(summary, out);
  if (failure) {
    throw new Error(
      `send-many stopped before the end of ${file.path}: the rows after the last one counted were not read`,
      {
        cause: failure.error,
      },
    );
  }
  return batchExitCode({
    interrupted: stop?.exitCode,
    unknown: summary.unknown,
    failed: summary.failed + (tracked?.failed ?? 0),
    timedOut: tracked?.timeout ?? 0,
  });
}

/** `--track` and `--track delivered` follow to delivered, `--track read` to read; anything else is refused. */
function trackedStatus(track: string | boolean | undefined): 'delivered' | 'read' | undefined {
  if (track === undefined || track === false) return undefined;
  if (track === true || track === 'delivered') return 'delivered';
  if (track === 'read') return 'read';
  throw new UsageError(`--track takes delivered or read, got '${track}'`);
}

/** The failed and unknown rows' files are made beside the input: a directory that refuses them is found before any request. */
async function checkWritable(path: string): Promise<void> {
  try {
    await access(dirname(path), constants.W_OK);
  } catch {
    throw new UsageError(
      `--file: cannot write beside ${path} (${dirname(path)} is not writable): the failed, unknown and remaining rows are written there`,
    );
  }
}

/** The stop signal's reason (main.ts aborts with an InterruptedError), or Ctrl-C's when another abort came. */
const stopOf = (signal: AbortSignal): InterruptedError =>
  signal.reason instanceof InterruptedError ? signal.reason : new InterruptedError('SIGINT');

/** A stop signal came before the first row was sent: nothing was, and the input itself is what remains. */
function stoppedBeforeSending(file: RowFile, signal: AbortSignal, started: number, out: Context['out']): number {
  const stop = stopOf(signal);
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
      files: { remaining: file.path },
    },
    out,
    text,
  );
  return stop.exitCode;
}

const secondsSince = (started: number) => Number(((Date.now() - started) / 1000).toFixed(1));

const CONTENT = ['text', 'image', 'voice', 'document'] as const;

/** A row as `send`'s parameters, or the reason it cannot be sent (written next to it in the failed rows' file). */
function checkRow(row: Row, from: string | undefined): { params: SendMessageParams } | { reason: string } {
  const { fields } = row;
  const kinds = CONTENT.filter((kind) => fields[kind] !== undefined);
  if (kinds.length !== 1) {
    return {
      reason: `UsageError: give exactly one of text, image, voice or document${kinds.length > 0 ? `, not ${kinds.join(' and ')}` : ' (all are empty)'}`,
    };
  }
  if (kinds[0] === 'text' && fields.caption !== undefined) {
    return { reason: 'UsageError: caption goes with image, voice or document, not with text' };
  }
  try {
    return {
      params: sendParamsOf({
        ...fields,
        from: fields.from ?? from ?? '',
        to: fields.to ?? '',
        timeout: '60s',
        interval: '2s',
      }),
    };
  } catch (error) {
    return { reason: reasonOf(error) };
  }
}

/** An error as one line, for a note and for the reason column. */
const reasonOf = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message.replace(/\s*\n\s*/g, ' ')}` : String(error);

/** `50/s`, `50` (per second), or `120/min`. */
function parseRate(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(?:\/(s|sec|m|min))?$/.exec(text.trim());
  const n = Number(match?.[1]);
  if (!match || !(n > 0)) throw new UsageError(`--rate must look like 50/s or 120/min, got '${text}'`);
  return match[2]?.startsWith('m') ? n / 60 : n;
}

/** `campaign.csv` -> `campaign.failed.csv`. */
function siblingPath(path: string, kind: string): string {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') ? `${path.slice(0, dot)}.${kind}${path.slice(dot)}` : `${path}.${kind}`;
}

/** The summary: for people on stderr (stdout keeps data only), or the one JSON document on stdout. */
function printSummary(summary: SendManySummary, out: Context['out'], text = summaryText(summary)): void {
  if (out.format === 'human') out.note(text);
  else out.value(summary, () => text);
}

function summaryText(s: SendManySummary): string {
  const how = s.signal ? `Interrupted (${signalLabel(s.signal)})` : 'Done';
  const lines = [
    `${how} in ${s.seconds} s: ${s.sent} sent, ${s.failed} failed, ${s.unknown} unknown${s.interrupted ? `, ${s.remaining} not attempted` : ''} (of ${s.rows} row${s.rows === 1 ? '' : 's'}).`,
  ];
  if (s.tracked) {
    lines.push(
      `Tracked: ${s.tracked.reached} reached the status, ${s.tracked.timeout} timed out, ${s.tracked.failed} failed or could not be read.`,
    );
  }
  if (s.files['failed']) {
    lines.push(
      `Failed rows (refused, each with its reason in ${REASON_COLUMN}; fix them and send the file again): ${s.files['failed']}`,
    );
  }
  if (s.files['unknown']) {
    lines.push(
      `Unknown rows (may have been sent, each with its reason in ${REASON_COLUMN}; reconcile before sending them again): ${s.files['unknown']}`,
    );
  }
  if (s.files['remaining']) lines.push(`Rows not attempted (send this file to go on): ${s.files['remaining']}`);
  return lines.join('\n');
}
