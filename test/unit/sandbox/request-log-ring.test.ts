/**
 * The sandbox's request log against a plain model, the last `capacity` requests of a list: for
 * every capacity around where its arrays grow (they start at 1,024 entries and double up to the
 * capacity) and wrap, every query answers what the model does, across resets.
 */
import fc from 'fast-check';
import { RequestLog, type RequestLogFilter } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';

interface Entry {
  at: number;
  tenant: string;
  route: string;
  send?: { sender: string; recipient: string };
}

const TENANTS = ['acme', 'globex'];
const ROUTES = ['GET /me', 'POST /messages'];
const PHONES = ['+15550001001', '+15550001002', '+15551230001', '+15551230002', '+15551230003'];

const entry = fc.record(
  {
    gap: fc.integer({ min: 0, max: 40 }),
    tenant: fc.constantFrom(...TENANTS),
    route: fc.constantFrom(...ROUTES),
    send: fc.option(fc.record({ sender: fc.constantFrom(...PHONES), recipient: fc.constantFrom(...PHONES) }), {
      nil: undefined,
    }),
  },
  { requiredKeys: ['gap', 'tenant', 'route'] },
);

/** What the model answers: the entries a filter selects among the last `capacity`. */
function modelOf(entries: Entry[], capacity: number) {
  const held = entries.slice(-capacity);
  const select = (filter: RequestLogFilter) =>
    held.filter(
      (e) =>
        (filter.tenant === undefined || e.tenant === filter.tenant) &&
        (filter.route === undefined || e.route === filter.route) &&
        (filter.sender === undefined || e.send?.sender === filter.sender) &&
        (filter.recipient === undefined || e.send?.recipient === filter.recipient),
    );
  return { held, select };
}

const FILTERS: RequestLogFilter[] = [
  {},
  { tenant: 'acme' },
  { route: 'POST /messages' },
  { sender: '+15550001001' },
  { recipient: '+15551230002' },
  { tenant: 'globex', route: 'GET /me' },
];

function expectSame(log: RequestLog, entries: Entry[], capacity: number): void {
  const { held, select } = modelOf(entries, capacity);
  expect([log.total, log.size]).toEqual([entries.length, held.length]);
  for (const filter of FILTERS) {
    const selected = select(filter);
    expect(log.acceptedAt(filter), JSON.stringify(filter)).toEqual(selected.map((e) => e.at));
    expect(new Set(log.senders(filter))).toEqual(new Set(selected.flatMap((e) => (e.send ? [e.send.sender] : []))));
  }
}

describe('RequestLog, the ring of accepted requests', () => {
  it('answers as the last `capacity` requests would, however many came, where its arrays grow and wrap (fast-check)', () => {
    const capacity = fc.oneof(
      fc.constantFrom(1, 2, 1_023, 1_024, 1_025, 2_048, 2_049),
      fc.integer({ min: 1, max: 5_000 }),
    );
    fc.assert(
      fc.property(
        capacity,
        fc.array(entry, { maxLength: 60 }),
        fc.integer({ min: 0, max: 6_000 }),
        fc.boolean(),
        (capacity, pattern, count, resetMidway) => {
          const log = new RequestLog(capacity);
          let entries: Entry[] = [];
          let at = 1_000;
          // `count` requests repeating the drawn pattern (a few distinct ones, many of them).
          for (let i = 0; i < count && pattern.length > 0; i++) {
            const { gap, tenant, route, send } = pattern[i % pattern.length] as (typeof pattern)[number];
            at += gap;
            const next: Entry = { at, tenant, route, ...(send && { send }) };
            log.record(next.at, next.tenant, next.route, next.send);
            entries.push(next);
            if (resetMidway && i === Math.floor(count / 2)) {
              log.reset();
              entries = [];
            }
          }
          expectSame(log, entries, Math.max(1, capacity));
        },
      ),
      { numRuns: 60 },
    );
  });
});
