import { writeFile } from 'node:fs/promises';
import { SingleBar } from 'cli-progress';
import type { SendMessageParams } from '../../types/send.js';
import { parseCount, parseDuration } from '../duration.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { type Row, readRows, rowsText } from '../rows.js';
import { type Context, sendParamsOf } from './messages.js';

export interface SendManyFlags {
  readonly file: string;
  readonly from?: string;
  readonly concurrency: string;
  readonly rate?: string;
  /** Follow the sent messages to delivered (true, 'delivered') or read. */
  readonly track?: string | boolean;
  readonly trackTimeout: string;
}

/** What a send-many run did, printed at the end (`--json`: on stdout). */
export interface SendManySummary {
  rows: number;
  sent: number;
  /** Refused (by the SDK's checks or the API): safe to fix and send again. */
  failed: number;
  /** May have been sent: reconcile before sending again. */
  unknown: number;
  /** Not attempted (Ctrl-C came first). */
  remaining: number;
  interrupted: boolean;
  /** With --track: how the sent messages ended. */
  tracked?: { reached: number; timeout: number; failed: number };
  seconds: number;
  /** The files the failed, unknown and remaining rows were written to. */
  files: Record<string, string>;
}

/**
 * `send-many --file <csv|ndjson>`: every row through `messages.sendMany` (bounded concurrency,
 * answers lost reconciled, nothing sent twice), with a progress bar on a terminal. Failed,
 * unknown and not attempted rows are written back, as they were, to files beside the input.
 * Ctrl-C stops reading rows; the sends in flight end and are counted.
 */
export async function sendMany(flags: SendManyFlags, { client, out, signal }: Context): Promise<number> {
  if (typeof flags.track === 'string' && flags.track !== 'delivered' && flags.track !== 'read') {
    throw new UsageError(`--track takes delivered or read, got '${flags.track}'`);
  }
  const file = await readRows(flags.file);
  const concurrency = parseCount(flags.concurrency, '--concurrency');
  const rate = flags.rate === undefined ? undefined : parseRate(flags.rate);
  const sender = rate === undefined ? client : client.withOptions({ rateLimit: { requestsPerSecond: rate } });
  const started = Date.now();
  const failed: Row[] = [];
  const unknown: Row[] = [];
  /** Rows handed to sendMany, by its index. */
  const handed: Row[] = [];
  /** Rows with an outcome: sent, failed or unknown. */
  const settled = new Set<Row>();
  let sent = 0;
  const sentIds: number[] = [];
  const bar = process.stderr.isTTY && out.format === 'human' ? progressBar(file.rows.length) : undefined;
  const tick = () =>
    bar?.update(sent + failed.length + unknown.length, { sent, failed: failed.length, unknown: unknown.length });

  function* source(): Generator<SendMessageParams> {
    for (const row of file.rows) {
      let params: SendMessageParams;
      try {
        params = sendParamsOf(rowFlags(row, flags.from));
      } catch (error) {
        out.note(`line ${row.line}: ${(error as Error).message}`);
        failed.push(row);
        settled.add(row);
        tick();
        continue;
      }
      handed.push(row);
      yield params;
    }
  }

  let interrupted = false;
  try {
    for await (const result of sender.messages.sendMany(source(), { concurrency, signal })) {
      const row = handed[result.index] as Row;
      settled.add(row);
      if (result.status === 'sent') {
        sent++;
        sentIds.push(result.log.id);
      } else {
        (result.status === 'failed' ? failed : unknown).push(row);
        out.note(
          `line ${row.line}: ${result.status}: ${result.error.name}: ${result.error.message.replace(/\n\s*/g, ' ')}`,
        );
      }
      tick();
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    interrupted = true;
  } finally {
    bar?.stop();
  }
  // Every row sendMany started has an outcome (it yields the sends in flight before it stops), so
  // a row without one was never sent.
  const remaining = file.rows.filter((row) => !settled.has(row));
  const files: Record<string, string> = {};
  for (const [kind, rows] of [
    ['failed', failed],
    ['unknown', unknown],
    ['remaining', remaining],
  ] as const) {
    if (rows.length === 0) continue;
    const path = siblingPath(flags.file, kind);
    await writeFile(path, rowsText(file, sortByLine(rows)));
    files[kind] = path;
  }
  const until =
    flags.track === undefined || flags.track === false ? undefined : flags.track === 'read' ? 'read' : 'delivered';
  const tracked =
    until === undefined || interrupted || sentIds.length === 0
      ? undefined
      : await track(sender, sentIds, until, parseDuration(flags.trackTimeout, '--track-timeout'), out, signal);
  if (tracked?.interrupted) interrupted = true;
  const summary: SendManySummary = {
    rows: file.rows.length,
    sent,
    failed: failed.length,
    unknown: unknown.length,
    remaining: remaining.length,
    interrupted,
    ...(tracked ? { tracked: tracked.counts } : {}),
    seconds: Number(((Date.now() - started) / 1000).toFixed(1)),
    files,
  };
  out.value(summary, () => summaryText(summary));
  if (interrupted) return EXIT.interrupted;
  if (unknown.length > 0) return EXIT.unknown;
  if (failed.length > 0) return EXIT.failed;
  return tracked && tracked.counts.timeout > 0 ? EXIT.deliveryTimeout : EXIT.ok;
}

/**
 * `--track`: the sent messages followed with `trackDeliveries` (one shared poller, a poll per
 * message per interval at most) until each reaches `until`, times out, or cannot be read.
 */
async function track(
  client: Context['client'],
  ids: readonly number[],
  until: 'delivered' | 'read',
  timeout: number,
  out: Context['out'],
  signal: AbortSignal,
): Promise<{ counts: { reached: number; timeout: number; failed: number }; interrupted: boolean }> {
  const counts = { reached: 0, timeout: 0, failed: 0 };
  const ended = new Set<number>();
  const bar = process.stderr.isTTY && out.format === 'human' ? trackingBar(ids.length, until) : undefined;
  out.note(`Tracking ${ids.length} sent messages until ${until}...`);
  try {
    // The SDK's 2 s between polls, or a tenth of a short --track-timeout, so it is read in time.
    const interval = Math.min(2_000, Math.max(100, Math.round(timeout / 10)));
    for await (const update of client.trackDeliveries(ids, { until, timeout, interval, signal })) {
      if (ended.has(update.id)) continue;
      const reached = update.status === 'read' || (until === 'delivered' && update.status === 'delivered');
      if (reached) counts.reached++;
      else if (update.status === 'timeout') counts.timeout++;
      else if (update.status === 'failed') counts.failed++;
      else continue;
      ended.add(update.id);
      bar?.update(ended.size, counts);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    return { counts, interrupted: true };
  } finally {
    bar?.stop();
  }
  return { counts, interrupted: false };
}

function trackingBar(total: number, until: string): SingleBar {
  const bar = new SingleBar({
    format: `tracking {bar} {value}/{total} | ${until} {reached} timeout {timeout} failed {failed} | ETA {eta_formatted}`,
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: false,
  });
  bar.start(total, 0, { reached: 0, timeout: 0, failed: 0 });
  return bar;
}

/** A row's fields as `send`'s flags; `--from` stands in for a row without one. */
function rowFlags(row: Row, from: string | undefined) {
  const fields = row.fields;
  return {
    ...fields,
    from: fields['from'] || from || '',
    to: fields['to'] ?? '',
    timeout: '60s',
    interval: '2s',
  } as Parameters<typeof sendParamsOf>[0];
}

/** `50/s`, `50` (per second), or `120/min`. */
function parseRate(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(?:\/(s|sec|m|min))?$/.exec(text.trim());
  const n = Number(match?.[1]);
  if (!match || !(n > 0)) throw new UsageError(`--rate must look like 50/s or 120/min, got '${text}'`);
  return match[2]?.startsWith('m') ? n / 60 : n;
}

function progressBar(total: number): SingleBar {
  const bar = new SingleBar({
    format: '{bar} {value}/{total} | sent {sent} failed {failed} unknown {unknown} | ETA {eta_formatted}',
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: false,
  });
  bar.start(total, 0, { sent: 0, failed: 0, unknown: 0 });
  return bar;
}

const sortByLine = (rows: readonly Row[]) => [...rows].sort((a, b) => a.line - b.line);

/** `campaign.csv` -> `campaign.failed.csv`. */
function siblingPath(path: string, kind: string): string {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') ? `${path.slice(0, dot)}.${kind}${path.slice(dot)}` : `${path}.${kind}`;
}

function summaryText(s: SendManySummary): string {
  const lines = [
    `${s.interrupted ? 'Interrupted' : 'Done'} in ${s.seconds} s: ${s.sent} sent, ${s.failed} failed, ${s.unknown} unknown${s.interrupted ? `, ${s.remaining} not attempted` : ''} (of ${s.rows} rows).`,
  ];
  if (s.tracked) {
    lines.push(
      `Tracked: ${s.tracked.reached} reached the status, ${s.tracked.timeout} timed out, ${s.tracked.failed} could not be read.`,
    );
  }
  if (s.files['failed']) lines.push(`Failed rows (refused; fix them and send the file again): ${s.files['failed']}`);
  if (s.files['unknown'])
    lines.push(`Unknown rows (may have been sent; reconcile before sending again): ${s.files['unknown']}`);
  if (s.files['remaining']) lines.push(`Rows not attempted (send this file to go on): ${s.files['remaining']}`);
  return lines.join('\n');
}
