import { allOlderThan, matchOf, newestFirst } from '../core/bulk/reconcile.js';
import type { Page } from '../core/pagination.js';
import type { MessageLog } from '../types/message-log.js';
import type { SentParams } from '../types/send.js';

/**
 * A reconciliation's walk over `GET /messages`, one page per job start, so that every request it
 * makes is a job start the fleet's limiter counted (BullMQ's limiter counts starts, not requests).
 * The walk's progress lives in the job's data in Redis: a crash during reconciliation resumes it.
 *
 * The walk reads back until a page is older than the window (the send's `startedAt` minus the
 * clock-skew margin), however many pages that is. The service lists newest first (page 1 holds the
 * newest logs), so logs stored between two reads push older ones down: with `meta.total`, the next
 * page is computed from how far they were pushed (nothing is skipped, little is read twice);
 * without it, the next page number is read (a shifted page is read partly twice, never skipped).
 * A service that lists oldest first is walked from its last page backwards (positions are stable).
 *
 * The safety caps are derived from the tenant's limit, at the first read: every log needs a
 * request, so at most `requestsPerSecond * (firstRead - windowStart) / 1000` logs can have been
 * stored since the window's start, and logs further from the newest end than that are older (the
 * walk stops there even when the service's `sent_at` cannot tell). A read whose page was pushed
 * down entirely by the sends stored since the previous read (it reached no older log) is wasted:
 * at most as many wasted reads as the window has pages (plus two) are allowed, twice the pages in
 * all when the service gives no `meta.total`; a walk ended by that cap ends `unknown`, saying so,
 * as it cannot keep up with the sends. Without a rate
 * limit, only a `meta.last_page` gives a cap (twice the pages); else the walk ends at the window's
 * start or at the list's end.
 */
export interface WalkProgress {
  /** Logs sent before this (ms since the epoch) cannot be the send: `startedAt` minus the clock-skew margin. */
  readonly windowStart: number;
  /** The sender number's id, resolved in a step of its own; `null`: the tenant has no such number. */
  readonly senderId?: number | null;
  /** The page the next step reads. */
  readonly page: number;
  /** The service's order, from the first page. */
  readonly order?: 'newest-first' | 'oldest-first';
  /** Logs per page, from the first page. */
  readonly perPage?: number;
  /** Oldest first, walked backwards from this last page. */
  readonly lastPage?: number;
  /** Newest first with `meta.total`: the oldest-first index of the oldest log read so far. */
  readonly lowest?: number;
  /** Newest first with `meta.total`: logs below this oldest-first index are older than the window (rate cap). */
  readonly floor?: number;
  /** Oldest first, walked forwards: the read that first reached the window. */
  readonly entered?: number;
  /** Newest first with `meta.total`: reads that reached no older log. */
  readonly wasted?: number;
  /** The caps, fixed at the first read. */
  readonly caps?: WalkCaps;
  readonly reads: number;
  readonly logs: number;
  /** Logs that certainly match (recipient echoed), by id: the `found` log when there is one. */
  readonly certain: readonly MessageLog[];
  /** Ids of logs that match without the recipient echoed. */
  readonly uncertain: readonly number[];
}

/** How far a walk may go (see `WalkProgress`). */
export interface WalkCaps {
  /** The most logs that can have been stored between the window's start and the first read. */
  readonly newer: number;
  /** The most pages read when the service gives no `meta.total` (no read can be told wasted). */
  readonly reads: number;
  /** With `meta.total`: the most reads that reached no older log (pushed down by the sends stored meanwhile). */
  readonly wasted: number;
}

/** How a walk ended. */
export type WalkResult =
  | { readonly status: 'found'; readonly log: MessageLog }
  | {
      readonly status: 'not-found' | 'ambiguous';
      readonly candidates: number;
      readonly pages: number;
      /** False when the cap on wasted reads ended the walk before the window's start. */
      readonly complete: boolean;
    };

/** A fresh walk for a send whose POST began at `startedAt`. */
export function startWalk(startedAt: number, clockSkewMs: number): WalkProgress {
  return { windowStart: startedAt - clockSkewMs, page: 1, reads: 0, logs: 0, certain: [], uncertain: [] };
}

/** What a step compares the logs with, and the limit the cap derives from. */
export interface WalkContext {
  readonly params: SentParams;
  readonly requestsPerSecond: number | undefined;
  readonly now: number;
}

/** Takes in the page `progress.page` just read: the walk's next progress, or how it ended. */
export function walkPage(
  progress: WalkProgress,
  page: Pick<Page<MessageLog>, 'data' | 'meta' | 'hasNextPage'>,
  context: WalkContext,
): { readonly progress: WalkProgress } | { readonly result: WalkResult } {
  const { params } = context;
  const logs = page.data;
  const read = progress.page;
  const first = progress.reads === 0;
  const senderId = progress.senderId ?? params.sender_number_id;
  const target = {
    params,
    senderId,
    content: params.content ? params.content : null,
    windowStart: progress.windowStart,
  };
  const certain = [...progress.certain];
  const uncertain = [...progress.uncertain];
  for (const log of logs) {
    const match = matchOf(log, target);
    if (match === 'certain' && !certain.some((known) => known.id === log.id)) certain.push(log);
    if (match === 'uncertain' && !uncertain.includes(log.id)) uncertain.push(log.id);
  }
  const order = progress.order ?? (newestFirst(logs) ? 'newest-first' : 'oldest-first');
  const perPage = progress.perPage ?? (page.meta?.per_page || logs.length);
  const base = { ...progress, order, perPage, reads: progress.reads + 1, logs: progress.logs + logs.length };
  const done = (complete = true): { result: WalkResult } => ({
    result: resultOf(certain, uncertain, base.reads, complete),
  });
  if (logs.length === 0 || perPage <= 0) return done();
  const total = page.meta?.total;
  const caps = first ? capsOf(context, progress.windowStart, perPage, page.meta) : progress.caps;

  let next: number;
  let extra: Partial<WalkProgress> = {};
  if (order === 'newest-first') {
    if (allOlderThan(logs, progress.windowStart)) return done();
    if (typeof total === 'number') {
      // Oldest-first indexes do not move when logs are added: the page read covers
      // [total - (read - 1) * perPage - length, ...], and it always reaches the previous lowest.
      const lowest = Math.min(progress.lowest ?? total, total - (read - 1) * perPage - logs.length);
      // The rate cap, in indexes: only the `newer` logs stored last before the first read can be in the window.
      const floor = progress.floor ?? (caps ? total - caps.newer : 0);
      if (lowest <= Math.max(0, floor)) return done();
      // The next unread log, index lowest - 1, sits at position total - lowest (if none are added meanwhile).
      next = Math.floor((total - lowest) / perPage) + 1;
      // A read that reached no older log: its page was pushed down entirely since the previous read.
      const wasted = (progress.wasted ?? 0) + (progress.lowest !== undefined && lowest >= progress.lowest ? 1 : 0);
      if (caps && wasted >= caps.wasted) return done(false);
      extra = { lowest, floor, wasted };
    } else {
      // No total: a page pushed down is read partly twice, never skipped; only the reads cap ends it early.
      if (!page.hasNextPage()) return done();
      next = read + 1;
    }
  } else {
    const last = first ? page.meta?.last_page : progress.lastPage;
    if (typeof last === 'number' && last > 1) {
      if (!first && allOlderThan(logs, progress.windowStart)) return done();
      next = first ? last : read - 1;
      if (next < 2) return done(); // page 1 was the first page read
      // Positions do not move: the window's logs sit on the pages nearest the last one.
      if (caps && last - next + 1 > Math.ceil(caps.newer / perPage) + 1) return done();
      extra = { lastPage: last };
    } else {
      // Oldest first with no last page to start from: forwards to the end, or until the logs
      // stored since the window's start (before the first read) are all read: counted from the
      // first page that reaches the window (the pages before it are older, however many).
      if (!page.hasNextPage()) return done();
      next = read + 1;
      const entered = progress.entered ?? (allOlderThan(logs, progress.windowStart) ? undefined : base.reads);
      if (caps && entered !== undefined && base.reads - entered >= Math.ceil(caps.newer / perPage) + 1) return done();
      extra = entered === undefined ? {} : { entered };
    }
  }
  // Newest first with no total cannot tell a wasted read: its reads are capped, the walk then ends unknown.
  if (caps && order === 'newest-first' && typeof total !== 'number' && base.reads >= caps.reads) return done(false);
  return { progress: { ...base, ...extra, ...(caps ? { caps } : {}), page: next, certain, uncertain } };
}

/**
 * The walk's caps, fixed at its first read. With a rate limit: at most `newer` logs can have been
 * stored since the window's start, and the reads may reach twice their pages (each read may find
 * its page pushed down by the sends stored since the previous one). Without one, only a service
 * that says its `last_page` gives a cap: twice its pages.
 */
function capsOf(
  context: WalkContext,
  windowStart: number,
  perPage: number,
  meta: Page<MessageLog>['meta'],
): WalkCaps | undefined {
  const rps = context.requestsPerSecond;
  if (rps !== undefined) {
    const newer = Math.ceil(Math.max(0, (rps * (context.now - windowStart)) / 1000));
    const pages = Math.ceil(newer / perPage) + 2;
    return { newer, reads: 2 * pages, wasted: pages };
  }
  const last = meta?.last_page;
  return typeof last === 'number'
    ? { newer: Number.POSITIVE_INFINITY, reads: 2 * last + 2, wasted: last + 2 }
    : undefined;
}

function resultOf(
  certain: readonly MessageLog[],
  uncertain: readonly number[],
  pages: number,
  complete: boolean,
): WalkResult {
  const [only] = certain;
  if (only && certain.length === 1 && uncertain.length === 0) return { status: 'found', log: only };
  const candidates = certain.length + uncertain.length;
  return { status: candidates === 0 ? 'not-found' : 'ambiguous', candidates, pages, complete };
}
