import { parseDuration } from '../duration.js';
import { EXIT } from '../exit-codes.js';
import { createOutput } from '../output.js';
import { type LogChange, watchLogs } from '../watch-logs.js';
import { type Context, logLine } from './messages.js';

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
 * 0, or 130 after Ctrl-C (with a summary on stderr).
 */
export async function tail(flags: TailFlags, { client, out: given, signal }: Context): Promise<number> {
  // A stream of events: with --json too, one JSON document a line.
  const out = given.format === 'json' ? createOutput('ndjson') : given;
  const interval = parseDuration(flags.interval, '--interval');
  let events = 0;
  for await (const event of watchLogs(client, { interval, signal, announceFirstPage: true, once: !flags.follow })) {
    events++;
    out.value(event, () =>
      event.event === 'new'
        ? logLine(event.log)
        : `message log ${event.log.id}: ${event.from} -> ${event.log.delivery_status}`,
    );
  }
  if (!flags.follow) return EXIT.ok;
  out.note(`Stopped: ${events} changes seen.`);
  return EXIT.interrupted;
}
