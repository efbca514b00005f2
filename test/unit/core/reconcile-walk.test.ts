/**
 * The reconcile walk's step (src/core/bulk/reconcile-walk.ts), shared by `messages.reconcile` and
 * the fleet: a property over any list of logs, newest first, into which new logs land at the top
 * between two reads, and any page size; then its rules one by one. Every state goes through JSON
 * between two steps, as a job's data does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FALLBACK_MAX_PAGES } from '../../../src/core/bulk/reconcile.js';
import {
  needsSenderId,
  startWalk,
  stepWalk,
  type WalkOutcome,
  type WalkState,
  withSenderId,
} from '../../../src/core/bulk/reconcile-walk.js';
import { type Counters, type Kind, LogService, PARAMS, SENDER_ID } from './walk-service.js';

interface Run {
  readonly outcome: WalkOutcome;
  readonly reads: number;
  /** The list at the first read: its length and last page. */
  readonly total: number;
  readonly lastPage: number;
  readonly caps: WalkState['caps'];
}

/**
 * Steps a walk to its end as `messages.reconcile` does (the fallback cap once the first read
 * shows nothing else bounds it), storing `arrivals()` new logs at the top after every read.
 */
function walk(
  service: LogService,
  state: WalkState,
  options: { rps?: number | undefined; maxPages?: number | undefined; claimed?: ReadonlySet<number> },
  arrivals: () => number = () => 0,
): Run {
  const total = service.logs.length;
  const lastPage = service.lastPage;
  let caps: WalkState['caps'];
  for (let i = 0; i < 5_000; i++) {
    const fallback = state.reads > 0 && state.caps === undefined ? FALLBACK_MAX_PAGES : undefined;
    const step = stepWalk(state, service.page(state.page), {
      params: PARAMS,
      now: service.now,
      requestsPerSecond: options.rps,
      maxPages: options.maxPages ?? fallback,
      claimed: options.claimed,
    });
    state = JSON.parse(JSON.stringify(step.state)) as WalkState;
    caps ??= state.caps;
    if (step.kind === 'done') return { outcome: step.outcome, reads: state.reads, total, lastPage, caps };
    expect(step.page).toBe(state.page);
    for (let n = arrivals(); n > 0; n--) service.store('other');
  }
  throw new Error('the walk never ended');
}

const decoy = fc.constantFrom<Kind>('other', 'other', 'other', 'other-recipient', 'other-sender', 'other-type');

const scenario = fc.record({
  perPage: fc.integer({ min: 1, max: 25 }),
  counters: fc.constantFrom<Counters>('laravel', 'last-page', 'none'),
  // Before the window: other logs and twins of the send (too old to be it), some without sent_at.
  older: fc.array(fc.record({ kind: fc.constantFrom<Kind>('other', 'target', 'unechoed'), timeless: fc.boolean() }), {
    maxLength: 120,
    size: 'max',
  }),
  /** Logs stored inside the clock-skew margin (before the send's start, inside its window). */
  margin: fc.integer({ min: 0, max: 8 }),
  stored: fc.boolean(),
  newer: fc.array(fc.record({ kind: decoy, timeless: fc.boolean() }), { maxLength: 300, size: 'max' }),
  arrivals: fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 12 }),
  rps: fc.boolean(),
  maxPages: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
});

describe('the reconcile walk (property)', () => {
  it('finds the send when it is in the window, never reports a log that is not it, and ends within its cap', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const GAP = 20;
        const service = new LogService(s.perPage, s.counters, GAP);
        // Twins are stored with a time: a twin with none could be inside the window.
        for (const { kind, timeless } of s.older) service.store(kind, timeless && kind === 'other');
        const windowStart = service.now + 1;
        for (let i = 0; i < s.margin; i++) service.store('other');
        const target = s.stored ? service.store('target') : undefined;
        for (const { kind, timeless } of s.newer) service.store(kind, timeless);
        let turn = 0;
        const arrivals = () => s.arrivals[turn++ % s.arrivals.length] ?? 0;
        // The service stores one log every GAP ms at most: a rate of 1000 / GAP bounds it.
        const rps = s.rps ? 1000 / GAP : undefined;
        const run = walk(service, startWalk(windowStart), { rps, maxPages: s.maxPages }, arrivals);
        const { outcome, reads } = run;

        // Never a log that is not the send; never ambiguous (no other log in the window matches).
        if (outcome.status === 'found') expect(outcome.log.id).toBe(target?.id);
        expect(outcome.status).not.toBe('ambiguous');
        // A walk that reached the window's start (or the list's end) has seen the send if it is there.
        if (outcome.status !== 'found' && outcome.complete) expect(target).toBeUndefined();

        // A cap only ends a walk that new logs kept pushing down.
        const most = Math.max(...s.arrivals);
        if (outcome.status !== 'found' && outcome.stoppedBy === 'cap') expect(most).toBeGreaterThan(0);
        // With meta.total, fewer than a page between two reads never stops it; without, fewer than half.
        const keepsUp = s.counters === 'laravel' ? most < s.perPage : 2 * most < s.perPage;
        if (keepsUp && s.counters !== 'none') {
          if (outcome.status !== 'found') expect(outcome.stoppedBy ?? 'max-pages').toBe('max-pages');
          if (target && s.maxPages === undefined) expect(outcome.status).toBe('found');
        }

        // Within its caps: maxPages; without meta.total, the reads cap (or the fallback); with it,
        // the cap on reads that reached no older log, each other read reaching one at least.
        if (s.maxPages !== undefined) expect(reads).toBeLessThanOrEqual(s.maxPages);
        if (s.counters === 'laravel') expect(reads).toBeLessThanOrEqual(1 + run.total + (run.caps?.wasted ?? 0));
        else if (run.caps) expect(reads).toBeLessThanOrEqual(run.caps.reads);
        else expect(reads).toBeLessThanOrEqual(FALLBACK_MAX_PAGES);
      }),
      { seed: 2_026, numRuns: 600 },
    );
  });
});

/** A service of `older` logs before the window, then the send (unless `stored` is false), then `newer` others. */
function serviceWith(
  counters: Counters,
  { older = 0, newer = 0, perPage = 15, stored = true } = {},
): { service: LogService; windowStart: number } {
  const service = new LogService(perPage, counters);
  for (let i = 0; i < older; i++) service.store('other');
  const windowStart = service.now + 1;
  if (stored) service.store('target');
  for (let i = 0; i < newer; i++) service.store('other');
  return { service, windowStart };
}

describe('the reconcile walk, rule by rule', () => {
  it('reads back as far as the window goes: a send 40 pages back is found (the client used to stop at 10)', () => {
    for (const counters of ['laravel', 'last-page', 'none'] as const) {
      const { service, windowStart } = serviceWith(counters, { older: 100, newer: 600 });
      const run = walk(service, startWalk(windowStart), {});
      expect(run.outcome).toMatchObject({ status: 'found', log: { content: PARAMS.content } });
      expect(run.reads).toBeLessThanOrEqual(42);
    }
  });

  it('without a rate, a state that went through JSON keeps its caps (Infinity used to come back as null and end the walk at page 2)', () => {
    const { service, windowStart } = serviceWith('laravel', { older: 20, newer: 100 });
    const run = walk(service, startWalk(windowStart), {});
    expect(run.outcome.status).toBe('found');
    expect(run.caps).toEqual({ newer: null, reads: 2 * 9 + 2, wasted: 9 + 2 });
  });

  it('resumes a state stored by the previous release (caps.newer and floor stored as null)', () => {
    const { service, windowStart } = serviceWith('laravel', { older: 20, newer: 100 });
    const first = stepWalk(startWalk(windowStart), service.page(1), { params: PARAMS, now: service.now });
    if (first.kind !== 'read') throw new Error('the walk ended at its first page');
    const stored = JSON.parse(
      JSON.stringify({ ...first.state, floor: null, caps: { ...first.state.caps, newer: null } }),
    );
    expect(walk(service, stored as WalkState, {}).outcome.status).toBe('found');
  });

  it('the rate cap ends a walk whose logs carry no time at the logs the rate let be stored', () => {
    const service = new LogService(15, 'laravel', 20);
    for (let i = 0; i < 3_000; i++) service.store('other', true);
    // A window of 4 s at 50 a second holds at most 200 logs: the 14 newest pages, no further.
    const run = walk(service, startWalk(service.now - 4_000), { rps: 50 });
    expect(run.outcome).toMatchObject({ status: 'not-found', complete: true });
    expect(run.reads).toBe(Math.ceil(200 / 15));
  });

  it('the clock-skew margin: a log the service timed before the send started is still found', () => {
    const service = new LogService(15, 'laravel');
    for (let i = 0; i < 50; i++) service.store('other');
    service.store('target'); // the service's clock is 10 ms behind the sender's
    const startedAt = service.now + 10;
    for (let i = 0; i < 40; i++) service.store('other');
    expect(walk(service, startWalk(startedAt), {}).outcome.status).toBe('not-found');
    expect(walk(service, startWalk(startedAt - 60_000), {}).outcome.status).toBe('found');
  });

  it('a twin in the window is ambiguous; a match without the recipient echoed is a candidate, never found', () => {
    const { service, windowStart } = serviceWith('laravel', { newer: 40 });
    service.store('target');
    expect(walk(service, startWalk(windowStart), {}).outcome).toMatchObject({ status: 'ambiguous', candidates: 2 });
    const unechoed = serviceWith('laravel', { stored: false, newer: 20 });
    const log = unechoed.service.store('unechoed');
    const step = stepWalk(startWalk(unechoed.windowStart), unechoed.service.page(1), {
      params: PARAMS,
      now: unechoed.service.now,
    });
    expect(step.state.uncertain).toEqual([log.id]);
    expect(walk(unechoed.service, startWalk(unechoed.windowStart), {}).outcome).toMatchObject({
      status: 'ambiguous',
      candidates: 1,
    });
  });

  it('skips the logs claimed by other items of a batch', () => {
    const { service, windowStart } = serviceWith('laravel', { newer: 10 });
    const twin = service.store('target');
    const run = walk(service, startWalk(windowStart), { claimed: new Set([twin.id]) });
    expect(run.outcome).toMatchObject({ status: 'found', log: { id: 1 } });
  });

  it('maxPages stops the walk, saying it did not reach the window; a walk that ends there anyway is complete', () => {
    const { service, windowStart } = serviceWith('laravel', { older: 30, newer: 60 });
    expect(walk(service, startWalk(windowStart), { maxPages: 2 })).toMatchObject({
      outcome: { status: 'not-found', complete: false, stoppedBy: 'max-pages' },
      reads: 2,
    });
    const short = serviceWith('laravel', { stored: false, older: 30, newer: 10 });
    expect(walk(short.service, startWalk(short.windowStart), { maxPages: 2 }).outcome).toMatchObject({
      status: 'not-found',
      complete: true,
    });
  });

  it('a service that answers another page than the one asked ends the walk, incomplete', () => {
    const { service, windowStart } = serviceWith('last-page', { older: 30, newer: 60 });
    const first = stepWalk(startWalk(windowStart), service.page(1), { params: PARAMS, now: service.now });
    if (first.kind !== 'read') throw new Error('the walk ended at its first page');
    const step = stepWalk(first.state, service.page(first.page, 1), { params: PARAMS, now: service.now });
    expect(step).toMatchObject({ kind: 'done', outcome: { complete: false, stoppedBy: 'page-ignored' } });
  });

  it('oldest first: from the last page backwards, or forwards when the service gives no last page', () => {
    for (const counters of ['laravel', 'none'] as const) {
      const service = new LogService(15, counters, 20, 'oldest-first');
      for (let i = 0; i < 300; i++) service.store('other');
      const windowStart = service.now + 1;
      service.store('target');
      for (let i = 0; i < 40; i++) service.store('other');
      const run = walk(service, startWalk(windowStart), { rps: 50 });
      expect(run.outcome.status).toBe('found');
      // Page 1 to learn the order, then the last pages back past the window; or every page forwards.
      expect(run.reads).toBeLessThanOrEqual(counters === 'laravel' ? 1 + 4 : service.lastPage);
    }
  });

  it('asks for the sender number first when the send names its sender by phone only', () => {
    const byPhone = { to_phone: PARAMS.to_phone, type: 'text', content: PARAMS.content, sender_phone: '+15550001001' };
    const fresh = startWalk(0);
    expect(needsSenderId(fresh, byPhone)).toBe(true);
    expect(needsSenderId(fresh, PARAMS)).toBe(false);
    expect(needsSenderId(withSenderId(fresh, undefined), byPhone)).toBe(false);
    expect(withSenderId(fresh, SENDER_ID).senderId).toBe(SENDER_ID);
    expect(withSenderId(fresh, undefined).senderId).toBeNull();
    const { service, windowStart } = serviceWith('laravel', { newer: 3 });
    const state = withSenderId(startWalk(windowStart), SENDER_ID);
    const step = stepWalk(state, service.page(1), { params: byPhone, now: service.now });
    expect(step).toMatchObject({ kind: 'done', outcome: { status: 'found' } });
  });
});
