/**
 * The reconcile walk (src/bullmq/send/walk.ts), one page per step, against a simulated service that
 * keeps storing sends between two reads (a busy queue): over the whole class of depths, arrival
 * bursts and orders, the walk finds a stored send however many pages back it sits (the old walk
 * stopped at 10), never reports one that is not there, and stays within its derived cap.
 */
import fc from 'fast-check';
import type { MessageLog } from 'tenant-messaging';
import { describe, expect, it } from 'vitest';
import { startWalk, type WalkProgress, type WalkResult, walkPage } from '../../../../src/bullmq/send/walk.js';

const PER_PAGE = 15;
const SENDER_ID = 7;
const params = { sender_number_id: SENDER_ID, to_phone: '+15550002002', type: 'text' as const, content: 'the one' };

/** A service storing sends at `rps` (the fleet's limit), listing newest (or oldest) first. */
class Service {
  readonly logs: MessageLog[] = [];
  now = 1_700_000_000_000;
  constructor(
    readonly rps: number,
    readonly order: 'newest-first' | 'oldest-first',
    readonly withTotal: boolean,
  ) {}

  store(content: string): void {
    this.now += 1000 / this.rps;
    const id = this.logs.length + 1;
    this.logs.push({
      id,
      sender_number_id: SENDER_ID,
      message_type: 'text',
      content,
      request_payload: { to_phone: params.to_phone },
      sent_at: new Date(this.now).toISOString(),
    } as unknown as MessageLog);
  }

  page(n: number) {
    const ordered = this.order === 'newest-first' ? [...this.logs].reverse() : this.logs;
    const data = ordered.slice((n - 1) * PER_PAGE, n * PER_PAGE);
    const last = Math.max(1, Math.ceil(this.logs.length / PER_PAGE));
    const meta = this.withTotal
      ? { current_page: n, per_page: PER_PAGE, last_page: last, total: this.logs.length }
      : { current_page: n, per_page: PER_PAGE };
    return { data, meta, hasNextPage: () => n < last };
  }
}

/** Runs a walk to its end, storing `arrivals()` sends between two reads; returns its result and reads. */
function walk(service: Service, progress: WalkProgress, arrivals: () => number): { result: WalkResult; reads: number } {
  for (let reads = 1; reads < 10_000; reads++) {
    const step = walkPage(progress, service.page(progress.page), {
      params,
      requestsPerSecond: service.rps,
      now: service.now,
    });
    if ('result' in step) return { result: step.result, reads };
    progress = step.progress;
    for (let i = arrivals(); i > 0; i--) service.store('another');
  }
  throw new Error('the walk never ended');
}

const scenario = fc.record({
  before: fc.integer({ min: 0, max: 300 }),
  // Sends stored after it before the walk begins: up to 60 pages (the old walk read at most 10).
  after: fc.integer({ min: 0, max: 900 }),
  arrivals: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 20 }),
  stored: fc.boolean(),
  order: fc.constantFrom('newest-first' as const, 'oldest-first' as const),
  withTotal: fc.boolean(),
});

describe('the reconcile walk', () => {
  it('finds a stored send however deep, reports an unstored one not found, within the derived cap', () => {
    fc.assert(
      fc.property(scenario, ({ before, after, arrivals, stored, order, withTotal }) => {
        const service = new Service(50, order, withTotal);
        for (let i = 0; i < before; i++) service.store('older');
        const startedAt = service.now;
        if (stored) service.store(params.content);
        for (let i = 0; i < after; i++) service.store('another');
        let turn = 0;
        const { result, reads } = walk(service, startWalk(startedAt, 0), () => arrivals[turn++ % arrivals.length] ?? 0);
        // Incomplete (ended by the reads cap, reported `unknown`, never `found`) only when every
        // read can find its page pushed down entirely: newest first, a page or more stored between reads.
        const pushedWhole = Math.max(...arrivals) >= (withTotal ? PER_PAGE : 1);
        if ('complete' in result && !result.complete) expect(order === 'newest-first' && pushedWhole).toBe(true);
        if (result.status === 'found') expect(stored).toBe(true);
        else if ('complete' in result && result.complete) expect(result.status).toBe(stored ? 'found' : 'not-found');
        // Every page read is one request: the pages of the window, plus those the arrivals pushed
        // down between two reads (read partly twice), plus the two ends.
        const window = Math.ceil((after + 1) / PER_PAGE);
        const pushed = Math.ceil((reads * Math.max(...arrivals)) / PER_PAGE);
        if (order === 'newest-first') expect(reads).toBeLessThanOrEqual(window + pushed + 2);
        // Oldest first: page 1 (to learn the order), then from the last page back past the window.
        else if (withTotal) expect(reads).toBeLessThanOrEqual(window + 3);
        // Oldest first with no last page to start from: forwards through every page.
        else expect(reads).toBeLessThanOrEqual(Math.max(1, Math.ceil(service.logs.length / PER_PAGE)));
      }),
      { seed: 2_026, numRuns: 300 },
    );
  });

  it('a send stored twice in the window is ambiguous, never found', () => {
    const service = new Service(50, 'newest-first', true);
    const startedAt = service.now;
    service.store(params.content);
    for (let i = 0; i < 200; i++) service.store('another');
    service.store(params.content);
    expect(walk(service, startWalk(startedAt, 0), () => 3).result).toMatchObject({
      status: 'ambiguous',
      candidates: 2,
    });
  });

  it('the cap derived from the rate limit ends a walk whose logs carry no time', () => {
    const service = new Service(50, 'newest-first', true);
    for (let i = 0; i < 3_000; i++) service.store('older');
    for (const log of service.logs) (log as { sent_at: string | null }).sent_at = null;
    // A window of 4 s at 50 a second holds at most 200 logs: the 14 newest pages, no further.
    const { result, reads } = walk(service, startWalk(service.now - 4_000, 0), () => 0);
    expect(result).toMatchObject({ status: 'not-found', complete: true });
    expect(reads).toBe(Math.ceil(200 / PER_PAGE));
  });
});
