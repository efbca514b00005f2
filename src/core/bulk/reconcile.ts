import type { ReconcileSearch } from '../../internal/many-options.js';
import type { ReconcileResult } from '../../types/many.js';
import type { MessageLog } from '../../types/message-log.js';
import type { ListQuery } from '../../types/query.js';
import type { Page } from '../pagination.js';

/** What reconciling needs from the client: pages of logs, and sender phones resolved to ids. */
export interface ReconcileDeps {
  readonly listPage: (query: ListQuery) => Promise<Page<MessageLog>>;
  /** The id of the sender number with this phone, or undefined when the tenant has none. */
  readonly senderNumberId: (phone: string) => Promise<number | undefined>;
}

/** A log's `sent_at` in ms, or undefined when it has none or it does not parse. */
function sentAt(log: MessageLog): number | undefined {
  if (log.sent_at === null) return undefined;
  const at = Date.parse(log.sent_at);
  return Number.isNaN(at) ? undefined : at;
}

/** `voice` messages may be logged as `audio` (spec section 2.1). */
function sameType(sent: string, logged: string): boolean {
  return sent === logged || (sent === 'voice' && logged === 'audio');
}

/** Whether the logs of a page run newest first (the usual Laravel order); assumed when unclear. */
export function newestFirst(logs: readonly MessageLog[]): boolean {
  const times = logs.map(sentAt).filter((at): at is number => at !== undefined);
  const first = times[0];
  const last = times[times.length - 1];
  return first === undefined || last === undefined || first >= last;
}

/** What a log is compared with: the send, its sender number's id when known, its window's start. */
export interface MatchTarget {
  readonly params: ReconcileSearch['params'];
  readonly senderId: number | undefined;
  /** The send's `content`, with `''` as `null` (the service stores an empty content as null). */
  readonly content: string | null;
  readonly windowStart: number;
}

/**
 * Whether `log` may be the send: `certain` when everything the spec lets us compare agrees and
 * the recipient is echoed, `uncertain` when it agrees but the recipient is not echoed, else undefined.
 * Shared with tenant-messaging/bullmq, whose workers walk the pages one job start at a time.
 *
 * @example
 * ```ts
 * matchOf(log, { params, senderId: 7, content: params.content ?? null, windowStart }) // 'certain'
 * ```
 */
export function matchOf(log: MessageLog, target: MatchTarget): 'certain' | 'uncertain' | undefined {
  const { params, senderId, content, windowStart } = target;
  const at = sentAt(log);
  if (at !== undefined && at < windowStart) return undefined;
  if (!sameType(params.type, log.message_type)) return undefined;
  if ((log.content === '' ? null : log.content) !== content) return undefined;
  const payload = log.request_payload as Record<string, unknown>;
  if (senderId !== undefined && log.sender_number_id !== senderId) return undefined;
  if (
    senderId === undefined &&
    payload['sender_phone'] !== undefined &&
    payload['sender_phone'] !== params.sender_phone
  ) {
    return undefined;
  }
  if (payload['to_phone'] === undefined) return 'uncertain';
  return payload['to_phone'] === params.to_phone ? 'certain' : undefined;
}

/**
 * Whether every log of a page was sent before `windowStart` (a page with none is not).
 *
 * @example
 * ```ts
 * allOlderThan(page.data, since.getTime() - 60_000)
 * ```
 */
export function allOlderThan(logs: readonly MessageLog[], windowStart: number): boolean {
  return logs.length > 0 && logs.every((log) => (sentAt(log) ?? Number.POSITIVE_INFINITY) < windowStart);
}

/**
 * Searches the message logs for a send whose outcome is unknown. A log matches when everything
 * the spec lets us compare agrees: `message_type`, `content`, the sender number, `sent_at` inside
 * the window, and `request_payload.to_phone` when the service echoes it. A match is certain only
 * when the recipient was echoed; a match without it (or several) is `ambiguous`.
 *
 * The pages are walked in the service's order, detected from the first page's `sent_at`:
 * newest first, from page 1 until a page whose logs are all older than the window; oldest first,
 * from the last page (when `meta.last_page` says which) backwards, in the same way, else forwards.
 * `maxPages` bounds the walk either way.
 */
export async function reconcileSend(
  search: ReconcileSearch,
  deps: ReconcileDeps,
  claimed: ReadonlySet<number> = new Set(),
): Promise<ReconcileResult> {
  const { params, windowStart, maxPages } = search;
  const senderId =
    params.sender_number_id ??
    (params.sender_phone === undefined ? undefined : await deps.senderNumberId(params.sender_phone));
  const content = params.content === undefined || params.content === '' ? null : params.content;
  // By id: an offset-paged list shifts while it is read (a send lands between two pages), so
  // the same log can appear on two pages; and a log another item of a batch owns is not this one.
  const certain = new Map<number, MessageLog>();
  const uncertain = new Map<number, MessageLog>();
  const consider = (log: MessageLog) => {
    if (claimed.has(log.id)) return;
    const match = matchOf(log, { params, senderId, content, windowStart });
    if (match === 'certain') certain.set(log.id, log);
    else if (match === 'uncertain') uncertain.set(log.id, log);
  };
  const allOlder = (logs: readonly MessageLog[]) => allOlderThan(logs, windowStart);

  let pages = 0;
  let logs = 0;
  const first = await deps.listPage({});
  let page = first;
  pages++;
  const descending = newestFirst(page.data);
  const last = page.meta?.last_page;
  const backwards = !descending && typeof last === 'number' && last > 1;
  let pageNumber = backwards ? (last as number) : 1;
  if (backwards) {
    page = await deps.listPage({ page: pageNumber });
    pages++;
  }
  for (;;) {
    logs += page.data.length;
    for (const log of page.data) consider(log);
    if ((descending || backwards) && allOlder(page.data)) break;
    if (pages >= maxPages) break;
    if (backwards) {
      if (--pageNumber < 1) break;
      if (pageNumber === 1) page = first;
      else {
        page = await deps.listPage({ page: pageNumber });
        pages++;
      }
    } else {
      if (!page.hasNextPage() || page.data.length === 0) break;
      page = await page.getNextPage();
      pages++;
    }
  }
  const [only] = certain.values();
  if (certain.size === 1 && uncertain.size === 0) return { status: 'found', log: only as MessageLog };
  if (certain.size + uncertain.size === 0) return { status: 'not-found', searched: { pages, logs } };
  return { status: 'ambiguous', candidates: [...certain.values(), ...uncertain.values()] };
}
