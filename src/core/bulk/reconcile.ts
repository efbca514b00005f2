import type { ReconcileResult } from '../../types/many.js';
import type { MessageLog } from '../../types/message-log.js';
import type { ListQuery } from '../../types/query.js';
import type { SentParams } from '../../types/send.js';
import { needsSenderId, startWalk, stepWalk, type WalkOutcome, type WalkPage, withSenderId } from './reconcile-walk.js';

/** What reconciling needs from the client: pages of logs, and sender phones resolved to ids. */
export interface ReconcileDeps {
  readonly listPage: (query: ListQuery) => Promise<WalkPage>;
  /** The id of the sender number with this phone, or undefined when the tenant has none. */
  readonly senderNumberId: (phone: string) => Promise<number | undefined>;
  /** The wall clock (ms since the epoch). @default Date.now */
  readonly now?: (() => number) | undefined;
}

/** A checked search: what to look for, from when, and the caller's hard cap on pages, if any. */
export interface ReconcileSearch {
  readonly params: SentParams;
  /** The send's start minus the clock-skew margin (ms since the epoch). */
  readonly windowStart: number;
  /** A hard cap given by the caller; undefined: the walk's derived caps only (see `FALLBACK_MAX_PAGES`). */
  readonly maxPages?: number | undefined;
}

/**
 * The cap on pages when neither the caller's `maxPages`, nor a send rate, nor the service's
 * `meta.last_page` gives one (a service with no counters): a walk that never reaches the window's
 * start (logs without `sent_at`, sends stored faster than pages are read) must still end.
 */
export const FALLBACK_MAX_PAGES = 100;

/**
 * Searches the message logs for a send whose outcome is unknown, one request per step of the
 * shared walk (reconcile-walk.ts, which tenant-messaging/bullmq runs one job start at a time).
 * A log matches when everything the spec lets us compare agrees: `message_type`, `content`, the
 * sender number, `sent_at` inside the window, and `request_payload.to_phone` when the service
 * echoes it. A match is certain only when the recipient was echoed; a match without it (or
 * several) is `ambiguous`. `claimed`: log ids other items of a `sendMany` batch own.
 *
 * @example
 * ```ts
 * await reconcileSend({ params, windowStart: since.getTime() - 60_000 }, { listPage, senderNumberId })
 * ```
 */
export async function reconcileSend(
  search: ReconcileSearch,
  deps: ReconcileDeps,
  claimed: ReadonlySet<number> = new Set(),
): Promise<ReconcileResult> {
  const { params } = search;
  const now = deps.now ?? Date.now;
  let state = startWalk(search.windowStart);
  if (needsSenderId(state, params)) state = withSenderId(state, await deps.senderNumberId(params.sender_phone ?? ''));
  // Candidates without the recipient echoed are kept by id in the walk's state; their logs, here.
  const unechoed = new Map<number, MessageLog>();
  for (;;) {
    const page = await deps.listPage(state.reads === 0 ? {} : { page: state.page });
    // Once the first read has shown that nothing else bounds the walk, the fallback does.
    const fallback = state.reads > 0 && state.caps === undefined ? FALLBACK_MAX_PAGES : undefined;
    const maxPages = search.maxPages ?? fallback;
    const step = stepWalk(state, page, { params, now: now(), maxPages, claimed });
    state = step.state;
    for (const log of page.data) {
      if (!unechoed.has(log.id) && state.uncertain.includes(log.id)) unechoed.set(log.id, log);
    }
    if (step.kind === 'done') return resultOf(step.outcome, state.certain, state.uncertain, unechoed);
  }
}

function resultOf(
  outcome: WalkOutcome,
  certain: readonly MessageLog[],
  uncertain: readonly number[],
  unechoed: ReadonlyMap<number, MessageLog>,
): ReconcileResult {
  if (outcome.status === 'found') return { status: 'found', log: outcome.log };
  if (outcome.status === 'not-found') {
    return { status: 'not-found', searched: { pages: outcome.pages, logs: outcome.logs, complete: outcome.complete } };
  }
  const others = uncertain.flatMap((id) => unechoed.get(id) ?? []);
  return { status: 'ambiguous', candidates: [...certain, ...others] };
}
