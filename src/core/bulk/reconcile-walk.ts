import type { MessageLog } from '../../types/message-log.js';
import type { PageMeta } from '../../types/query.js';
import type { SentParams } from '../../types/send.js';
import { allOlderThan, matchOf, newestFirst } from './reconcile-match.js';

/**
 * The reconcile walk over `GET /messages`, one page per step: a pure function of an explicit,
 * JSON-serialisable state and the page just read. `messages.reconcile` runs the steps in a loop;
 * tenant-messaging/bullmq runs one per job start and keeps the state in the job's data, so a crash
 * resumes it.
 *
 * The walk reads back until a page is older than the window (the send's start minus the clock-skew
 * margin). Newest first (page 1 holds the newest logs), logs stored between two reads push older
 * ones down: with `meta.total`, the next page is computed from how far they were pushed (nothing is
 * skipped, little is read twice); without it, the next page number is read (a shifted page is read
 * partly twice, never skipped). Oldest first is walked from the last page backwards (positions are
 * stable), or forwards when the service gives no `meta.last_page`.
 *
 * The caps are fixed at the first read. With the tenant's send rate: at most
 * `requestsPerSecond * (firstRead - windowStart) / 1000` logs can have been stored since the
 * window's start, and logs further from the newest end than that are older (the walk stops there
 * even when `sent_at` cannot tell); reads that reached no older log (their page pushed down
 * entirely) are capped at the window's pages plus two, all reads at twice that when the service
 * gives no `meta.total`. Without a rate, `meta.last_page` gives the caps (its pages plus two, twice
 * that). A walk stopped by a cap (or by `maxPages`) ends with `complete: false`.
 */
export interface WalkState {
  /** Logs sent before this (ms since the epoch) cannot be the send: its start minus the clock-skew margin. */
  readonly windowStart: number;
  /** The sender number's id, when the send names its sender by phone; `null`: the tenant has no such number. */
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
  readonly floor?: number | null;
  /** Oldest first, walked forwards: the read that first reached the window. */
  readonly entered?: number;
  /** Newest first with `meta.total`: reads that reached no older log. */
  readonly wasted?: number;
  /** The caps, fixed at the first read. */
  readonly caps?: WalkCaps;
  /** Pages read so far. */
  readonly reads: number;
  /** Logs read so far (a log read twice counts twice). */
  readonly logs: number;
  /** Logs that certainly match (recipient echoed), by id: the `found` log when there is one. */
  readonly certain: readonly MessageLog[];
  /** Ids of logs that match without the recipient echoed. */
  readonly uncertain: readonly number[];
}

/** How far a walk may go (see `WalkState`). */
export interface WalkCaps {
  /** The most logs that can have been stored between the window's start and the first read; null: no bound (JSON has no Infinity). */
  readonly newer: number | null;
  /** The most pages read when the service gives no `meta.total` (no read can be told wasted). */
  readonly reads: number;
  /** With `meta.total`: the most reads that reached no older log (pushed down by the sends stored meanwhile). */
  readonly wasted: number;
}

/** One page of `GET /messages`, as a step reads it (a `Page<MessageLog>` is one). */
export interface WalkPage {
  readonly data: readonly MessageLog[];
  readonly meta: PageMeta | null;
  hasNextPage(): boolean;
}

/** What a step compares the logs with, and what bounds the walk. Not part of the state. */
export interface WalkContext {
  readonly params: SentParams;
  /** The most requests the tenant can make per second (every log needs one): the caps derive from it. */
  readonly requestsPerSecond?: number | undefined;
  /** When the page was read (ms since the epoch): the rate cap counts from the window's start to the first read. */
  readonly now: number;
  /** A hard cap on the pages read, on top of the derived caps. */
  readonly maxPages?: number | undefined;
  /** Log ids that are not this send's (other items of a `sendMany` batch own them). */
  readonly claimed?: ReadonlySet<number> | undefined;
}

/** How a walk ended. `complete: false`: it stopped before the window's start, so `not-found` proves nothing. */
export type WalkOutcome =
  | { readonly status: 'found'; readonly log: MessageLog; readonly pages: number; readonly logs: number }
  | {
      readonly status: 'not-found' | 'ambiguous';
      /** How many logs match. */
      readonly candidates: number;
      readonly pages: number;
      readonly logs: number;
      readonly complete: boolean;
      /** Why an incomplete walk stopped: a derived cap, `maxPages`, or a service that answered another page than the one asked. */
      readonly stoppedBy?: 'cap' | 'max-pages' | 'page-ignored';
    };

/** A step's answer: read `page` next, or the walk is over. Either way, the state to keep. */
export type WalkStep =
  | { readonly kind: 'read'; readonly page: number; readonly state: WalkState }
  | { readonly kind: 'done'; readonly outcome: WalkOutcome; readonly state: WalkState };

/**
 * A fresh walk for a send whose window starts at `windowStart` (its start minus the clock-skew margin).
 *
 * @example
 * ```ts
 * let state = startWalk(error.startedAt.getTime() - 60_000)
 * ```
 */
export function startWalk(windowStart: number): WalkState {
  return { windowStart, page: 1, reads: 0, logs: 0, certain: [], uncertain: [] };
}

/**
 * Whether the walk must learn the sender number's id before its first page: the send names its
 * sender by phone only, and the id has not been looked up yet.
 */
export function needsSenderId(state: WalkState, params: SentParams): boolean {
  return params.sender_number_id === undefined && params.sender_phone !== undefined && state.senderId === undefined;
}

/** The state once the sender number's id is known (`undefined`: the tenant has no such number). */
export function withSenderId(state: WalkState, id: number | undefined): WalkState {
  return { ...state, senderId: id ?? null };
}

/**
 * Takes in the page `state.page` just read: the page to read next, or how the walk ended.
 *
 * @example
 * ```ts
 * const step = stepWalk(state, await client.messages.list({ page: state.page }), { params, now: Date.now() })
 * if (step.kind === 'done') console.log(step.outcome.status)
 * ```
 */
export function stepWalk(state: WalkState, page: WalkPage, context: WalkContext): WalkStep {
  const { params, claimed } = context;
  const logs = page.data;
  const meta = page.meta;
  const read = state.page;
  const first = state.reads === 0;
  const { windowStart } = state;
  const target = {
    params,
    senderId: state.senderId ?? params.sender_number_id,
    content: params.content ? params.content : null,
    windowStart,
  };
  const certain = [...state.certain];
  const uncertain = [...state.uncertain];
  for (const log of logs) {
    if (claimed?.has(log.id)) continue;
    const match = matchOf(log, target);
    if (match === 'certain' && !certain.some((known) => known.id === log.id)) certain.push(log);
    if (match === 'uncertain' && !uncertain.includes(log.id)) uncertain.push(log.id);
  }
  const order = state.order ?? (newestFirst(logs) ? 'newest-first' : 'oldest-first');
  const perPage = state.perPage ?? positive(meta?.per_page) ?? logs.length;
  const base: WalkState = {
    ...state,
    order,
    perPage,
    reads: state.reads + 1,
    logs: state.logs + logs.length,
    certain,
    uncertain,
  };
  const done = (stoppedBy?: 'cap' | 'max-pages' | 'page-ignored'): WalkStep => ({
    kind: 'done',
    outcome: outcomeOf(base, stoppedBy),
    state: base,
  });
  // A service (or proxy) that ignores `page` answers another page: positions mean nothing then.
  if (typeof meta?.current_page === 'number' && meta.current_page !== read) return done('page-ignored');
  if (logs.length === 0 || perPage <= 0) return done();
  const total = meta?.total;
  const caps = first ? capsOf(context, windowStart, perPage, meta) : state.caps;
  const windowPages = caps?.newer == null ? undefined : Math.ceil(caps.newer / perPage) + 1;

  let next: number;
  let extra: Partial<WalkState> = {};
  if (order === 'newest-first') {
    if (allOlderThan(logs, windowStart)) return done();
    if (typeof total === 'number') {
      // Oldest-first indexes do not move when logs are added: the page read covers
      // [total - (read - 1) * perPage - length, ...], and it always reaches the previous lowest.
      const lowest = Math.min(state.lowest ?? total, total - (read - 1) * perPage - logs.length);
      // The rate cap, in indexes: only the `newer` logs stored last before the first read can be in the window.
      const floor = state.floor ?? (caps?.newer == null ? 0 : Math.max(0, total - caps.newer));
      if (lowest <= Math.max(0, floor)) return done();
      // The next unread log, index lowest - 1, sits at position total - lowest (if none are added meanwhile).
      next = Math.floor((total - lowest) / perPage) + 1;
      // A read that reached no older log: its page was pushed down entirely since the previous read.
      const wasted = (state.wasted ?? 0) + (state.lowest !== undefined && lowest >= state.lowest ? 1 : 0);
      if (caps && wasted >= caps.wasted) return done('cap');
      extra = { lowest, floor, wasted };
    } else {
      // No total: a page pushed down is read partly twice, never skipped; only the reads cap ends it early.
      if (!page.hasNextPage()) return done();
      next = read + 1;
      if (caps && base.reads >= caps.reads) return done('cap');
    }
  } else {
    const last = first ? meta?.last_page : state.lastPage;
    if (typeof last === 'number' && last > 1) {
      if (!first && allOlderThan(logs, windowStart)) return done();
      next = first ? last : read - 1;
      if (next < 2) return done(); // page 1 was the first page read
      // Positions do not move: the window's logs sit on the pages nearest the last one.
      if (windowPages !== undefined && last - next + 1 > windowPages) return done();
      extra = { lastPage: last };
    } else {
      // Oldest first with no last page to start from: forwards to the end, or until the logs
      // stored since the window's start (before the first read) are all read: counted from the
      // first page that reaches the window (the pages before it are older, however many).
      if (!page.hasNextPage()) return done();
      next = read + 1;
      const entered = state.entered ?? (allOlderThan(logs, windowStart) ? undefined : base.reads);
      if (windowPages !== undefined && entered !== undefined && base.reads - entered >= windowPages) return done();
      extra = entered === undefined ? {} : { entered };
    }
  }
  if (context.maxPages !== undefined && base.reads >= context.maxPages) return done('max-pages');
  return { kind: 'read', page: next, state: { ...base, ...extra, ...(caps ? { caps } : {}), page: next } };
}

/** A positive number from the service's counters, else undefined. */
function positive(value: unknown): number | undefined {
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/**
 * The walk's caps, fixed at its first read. With a rate: at most `newer` logs can have been
 * stored since the window's start, and the reads may reach twice their pages (each read may find
 * its page pushed down by the sends stored since the previous one). Without one, only a service
 * that says its `last_page` gives a cap: twice its pages.
 */
function capsOf(
  context: WalkContext,
  windowStart: number,
  perPage: number,
  meta: PageMeta | null,
): WalkCaps | undefined {
  const rps = context.requestsPerSecond;
  if (rps !== undefined && rps > 0 && Number.isFinite(rps)) {
    const newer = Math.ceil(Math.max(0, (rps * (context.now - windowStart)) / 1000));
    const pages = Math.ceil(newer / perPage) + 2;
    return { newer, reads: 2 * pages, wasted: pages };
  }
  const last = meta?.last_page;
  return typeof last === 'number' && last >= 1 ? { newer: null, reads: 2 * last + 2, wasted: last + 2 } : undefined;
}

function outcomeOf(state: WalkState, stoppedBy: 'cap' | 'max-pages' | 'page-ignored' | undefined): WalkOutcome {
  const { certain, uncertain, reads: pages, logs } = state;
  const [only] = certain;
  if (only && certain.length === 1 && uncertain.length === 0) return { status: 'found', log: only, pages, logs };
  const candidates = certain.length + uncertain.length;
  return {
    status: candidates === 0 ? 'not-found' : 'ambiguous',
    candidates,
    pages,
    logs,
    complete: stoppedBy === undefined,
    ...(stoppedBy ? { stoppedBy } : {}),
  };
}
