import { sleep } from '../../internal/sleep.js';
import type { MessageLog } from '../../types/message-log.js';
import { parseDuration } from '../duration.js';
import { EXIT } from '../exit-codes.js';
import { createOutput } from '../output.js';
import { type Context, logLine } from './messages.js';

export interface TailFlags {
  readonly follow?: boolean;
  readonly interval: string;
}

/** One thing `tail` saw: a log it had not seen, or a known log whose delivery status changed. */
export type TailEvent =
  | { readonly event: 'new'; readonly log: MessageLog }
  | { readonly event: 'status'; readonly from: string; readonly log: MessageLog };

/** Logs whose status `tail` remembers: the first page is what it rereads, so a few pages' worth is plenty. */
const REMEMBERED = 1_000;

/**
 * `tail [--follow]`: the logs of the first page of `GET /messages`; with `--follow`, that page
 * read again every `--interval`, printing each log not seen before and each change of a known
 * log's delivery status, until Ctrl-C. The spec shows no ordering for the list, so logs are told
 * apart by id, never by position. Returns the exit code: 0, or 130 after Ctrl-C (with a summary
 * on stderr).
 */
export async function tail(flags: TailFlags, { client, out: given, signal }: Context): Promise<number> {
  // A stream of events: with --json too, one JSON document a line.
  const out = given.format === 'json' ? createOutput('ndjson') : given;
  const interval = parseDuration(flags.interval, '--interval');
  const statuses = new Map<number, string>();
  let events = 0;
  const show = (event: TailEvent) => {
    events++;
    out.value(event, () =>
      event.event === 'new'
        ? logLine(event.log)
        : `message log ${event.log.id}: ${event.from} -> ${event.log.delivery_status}`,
    );
  };
  const read = async (announceNew: boolean) => {
    const page = await client.messages.list({}, { signal });
    for (const log of [...page.data].sort((a, b) => a.id - b.id)) {
      const before = statuses.get(log.id);
      if (before === undefined) {
        if (announceNew) show({ event: 'new', log });
      } else if (before !== log.delivery_status) show({ event: 'status', from: before, log });
      statuses.delete(log.id); // re-inserted last: the map's order is the order last seen
      statuses.set(log.id, log.delivery_status);
    }
    for (const id of statuses.keys()) {
      if (statuses.size <= REMEMBERED) break;
      statuses.delete(id);
    }
  };
  await read(true);
  if (!flags.follow) return EXIT.ok;
  try {
    for (;;) {
      await sleep(interval, signal);
      await read(true);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  out.note(`Stopped: ${events} changes seen.`);
  return EXIT.interrupted;
}
