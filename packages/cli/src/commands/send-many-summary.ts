/** The end of a send-many run: the counts, the files written, and how it is printed. */

import { REASON_COLUMN } from '../rows/row-fields.js';
import { type StopSignal, signalLabel } from '../shell/interrupt.js';
import type { Context } from './messages.js';

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
  /** The log ids of the rows sent, in the order their sends answered (with --ndjson, also one line each as it comes). */
  log_ids: readonly number[];
  /**
   * The files the failed, unknown and remaining rows were written to; `remaining` is the input
   * file itself when the stop came before any row was sent.
   */
  files: Record<string, string>;
}

/** Seconds since `started` (a `Date.now()`), to a tenth. */
export const secondsSince = (started: number) => Number(((Date.now() - started) / 1000).toFixed(1));

/** The summary: for people on stderr (stdout keeps data only), or the one JSON document on stdout. */
export function printSummary(summary: SendManySummary, out: Context['out'], text = summaryText(summary)): void {
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
