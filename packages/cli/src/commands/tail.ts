import type { MessageLog } from 'tenant-messaging';
import { createOutput } from '../output/output.js';
import { parseDuration } from '../shell/duration.js';
import { EXIT } from '../shell/exit-codes.js';
import { readerGone, stopCodeOf } from '../shell/interrupt.js';
import type { Context } from './messages.js';
import { type LogChange, watchLogs } from './watch-logs.js';

export interface TailFlags {
  readonly follow?: boolean;
  readonly interval: string;
}

/** One thing `tail` saw: a log it had not seen, or a known log whose delivery status changed. */
export type TailEvent = LogChange;

/**
 * `tail [--follow]`: the logs of the first page of `GET /messages`; with `--follow`, that page
 * read again every `--interval`, printing each log not seen before and each change of a known
 * log's delivery status, until Ctrl-C (watch-logs.ts reads and compares). Returns the exit code:
 * 0 (also once stdout's reader went away), or 130 after Ctrl-C (with a summary on stderr).
 */
export async function tail(flags: TailFlags, { client, out: given, signal }: Context): Promise<number> {
  // A stream of events: with --json too, one JSON document a line.
  const out = given.format === 'json' ? createOutput('ndjson') : given;
  const interval = parseDuration(flags.interval, '--interval');
  let events = 0;
  for await (const event of watchLogs(client, { interval, signal, announceFirstPage: true, once: !flags.follow })) {
    events++;
    out.value(event, () => tailLine(event, new Date()));
  }
  // Stdout's reader gone (`| head`): it had what it wanted; nothing to say.
  if (!flags.follow || readerGone(signal)) return EXIT.ok;
  out.note(`Stopped: ${events} changes seen.`);
  return stopCodeOf(signal);
}

/**
 * One event as a line for people: when, which log, its type, to whom, and its status (or the
 * change of it). The time of a new log is its `sent_at`; the API records no delivery or read time,
 * so a change is timed when it was seen (`seenAt`, within one `--interval` of it). The content is
 * left out: message bodies are one-time codes and personal data, and a followed terminal is often
 * shared or recorded (`get <id>` shows it; `--ndjson` carries the whole log).
 *
 * @example
 * ```ts
 * tailLine({ event: 'status', from: 'sent', log }, new Date())
 * // '2026-11-25T04:25:54Z  message log 15  text      to +15557654321  sent -> read'
 * ```
 */
export function tailLine(event: LogChange, seenAt: Date): string {
  const { log } = event;
  const at = event.event === 'new' && log.sent_at ? timeOf(log.sent_at) : timeOf(seenAt.toISOString());
  const status = event.event === 'new' ? log.delivery_status : `${event.from} -> ${log.delivery_status}`;
  // The type padded to the longest the spec lists (`document`), so that the recipients line up.
  return [at, `message log ${log.id}`, log.message_type.padEnd(8), `to ${recipientOf(log)}`, status].join('  ');
}

/** An ISO time to the second, `2026-11-25T04:25:52Z`; a `sent_at` that is no date, as it came. */
function timeOf(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * Whom a log's message went to. The spec's log has no recipient phone: its `request_payload`
 * echoes the send's `to_phone` (as the service and the sandbox do); without it, the recipient's
 * user id.
 */
function recipientOf(log: MessageLog): string {
  const phone = log.request_payload['to_phone'];
  if (typeof phone === 'string' && phone !== '') return phone;
  return log.recipient_user_id === null ? 'an unknown recipient' : `user ${log.recipient_user_id}`;
}
