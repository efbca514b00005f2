import { setTimeout as sleep } from 'node:timers/promises';
import type { MessageLog, MessagingClient } from 'tenant-messaging';

/** One thing a watch saw: a log it had not seen, or a known log whose delivery status changed. */
export type LogChange =
  | { readonly event: 'new'; readonly log: MessageLog }
  | { readonly event: 'status'; readonly from: string; readonly log: MessageLog };

/** Options of `watchLogs`. */
export interface WatchLogsOptions {
  /** Milliseconds between two reads of the first page. */
  readonly interval: number;
  /** Ctrl-C: during a later read or between two reads it ends the watch; during the first read it throws. */
  readonly signal: AbortSignal;
  /**
   * Whether the logs of the first read are yielded as new (`tail`), or only remembered as the
   * baseline whose later changes are yielded (`listen`, which does not replay history).
   */
  readonly announceFirstPage: boolean;
  /**
   * Read once, then end (`tail` without `--follow`).
   * @default false
   */
  readonly once?: boolean;
  /** Called once the first read is done: every change from then on will be seen. */
  readonly onFirstPage?: () => void;
}

/** Logs whose status a watch remembers: the first page is what it rereads, so a few pages' worth is plenty. */
const REMEMBERED = 1_000;

/**
 * The changes of the message logs, as `tail --follow` and `listen` show them: the first page of
 * `GET /messages` read every `interval`, yielding each log not seen before and each change of a
 * known log's delivery status, until the signal aborts (the generator then simply ends). The spec
 * shows no ordering for the list, so logs are told apart by id, never by position; each page is
 * taken in id order. A status held between two reads only (sent, then delivered and read before
 * the next read) is not seen: this is polling, not a feed.
 *
 * @example
 * ```ts
 * for await (const change of watchLogs(client, { interval: 2000, signal, announceFirstPage: false })) console.log(change)
 * ```
 */
export async function* watchLogs(client: MessagingClient, options: WatchLogsOptions): AsyncGenerator<LogChange> {
  const statuses = new Map<number, string>();
  const read = async (announceNew: boolean): Promise<LogChange[]> => {
    const page = await client.messages.list({}, { signal: options.signal });
    return changesOf(page.data, statuses, announceNew);
  };
  // The first read is outside the try: an error there (Ctrl-C included) is the caller's to report.
  yield* await read(options.announceFirstPage);
  options.onFirstPage?.();
  if (options.once) return;
  try {
    for (;;) {
      await sleep(options.interval, undefined, { signal: options.signal });
      yield* await read(true);
    }
  } catch (error) {
    if (!options.signal.aborted) throw error;
  }
}

/**
 * The changes one page shows against `statuses`, which it updates: the whole page is taken in
 * before anything is yielded, so a consumer that stops half-way leaves no half-read page behind.
 */
function changesOf(logs: readonly MessageLog[], statuses: Map<number, string>, announceNew: boolean): LogChange[] {
  const changes: LogChange[] = [];
  for (const log of [...logs].sort((a, b) => a.id - b.id)) {
    const before = statuses.get(log.id);
    if (before === undefined) {
      if (announceNew) changes.push({ event: 'new', log });
    } else if (before !== log.delivery_status) changes.push({ event: 'status', from: before, log });
    statuses.delete(log.id); // re-inserted last: the map's order is the order last seen
    statuses.set(log.id, log.delivery_status);
  }
  for (const id of statuses.keys()) {
    if (statuses.size <= REMEMBERED) break;
    statuses.delete(id);
  }
  return changes;
}
