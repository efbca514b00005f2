/**
 * The session table of `--http` (sessions.ts), on a fake clock: an idle session (nothing open, no
 * request for idleMs) is closed; one with a stream open is not; at the cap, the least recently used
 * session that finished initializing, with nothing open and no request for a minute, makes room,
 * and while none is such a new client is told how long to wait; initializes at once never hold
 * more than the cap.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionTable } from '../../src/serve/sessions.js';

const RECENT = 60_000;

function table(max: number) {
  let now = 0;
  const closed: string[] = [];
  const sessions = new SessionTable({ max, idleMs: 30 * RECENT, recentMs: RECENT, now: () => now });
  /** A session in the table; `initialized`: its client sent `notifications/initialized`. */
  const open = (id: string, initialized = true) => {
    const entry = sessions.entry(async () => void closed.push(id));
    entry.initialized = initialized;
    sessions.add(id, entry);
    return entry;
  };
  return { sessions, open, closed, tick: (ms: number) => (now += ms), now: () => now };
}

describe('SessionTable', () => {
  it('closes a session idle for idleMs, not one whose stream is open', async () => {
    const { sessions, open, closed, tick } = table(10);
    open('abandoned');
    let end: () => void = () => {};
    sessions.track(open('streaming'), false, (done) => (end = done));
    tick(30 * RECENT - 1);
    await sessions.sweep();
    expect(closed).toEqual([]);
    tick(1);
    await sessions.sweep();
    expect(closed).toEqual(['abandoned']);
    end();
    tick(30 * RECENT);
    await sessions.sweep();
    expect(closed).toEqual(['abandoned', 'streaming']);
    expect(sessions.size).toBe(0);
  });

  it('at the cap, evicts the least recently used session with no call in flight and no request for recentMs', async () => {
    const { sessions, open, closed, tick } = table(3);
    const first = open('first');
    tick(1);
    open('second');
    tick(1);
    open('third');
    sessions.track(first, true, () => {}); // a call in flight: never evicted
    tick(RECENT);
    sessions.use('second'); // used just now: not evicted either
    const reservation = await sessions.reserve();
    expect('release' in reservation).toBe(true);
    if ('release' in reservation) reservation.release();
    expect(closed).toEqual(['third']);
    expect(sessions.use('third')).toBeUndefined();
    open('fourth');
    sessions.track(sessions.use('second') ?? first, true, () => {});
    sessions.track(sessions.use('fourth') ?? first, true, () => {});
    expect(await sessions.reserve()).toEqual({ retryAfterMs: 1_000 });
    expect(sessions.callsInFlight()).toBe(3);
  });

  it('never evicts a session used in the last minute (one still initializing included): 503 with the time until one may', async () => {
    const { sessions, open, closed, tick } = table(3);
    open('a');
    tick(10_000);
    open('b'); // initialized, its `initialized` notification still on its way
    tick(10_000);
    open('c');
    tick(10_000);
    expect(await sessions.reserve()).toEqual({ retryAfterMs: RECENT - 30_000 });
    expect(closed).toEqual([]);
    tick(RECENT - 30_000);
    const reservation = await sessions.reserve();
    expect('release' in reservation).toBe(true);
    expect(closed).toEqual(['a']);
  });

  it('never evicts a session still initializing, however long ago its initialize came: idle expiry alone closes it', async () => {
    const { sessions, open, closed, tick } = table(2);
    const slow = open('slow', false); // answered initialize; its `initialized` notification not yet come
    open('abandoned');
    tick(10 * RECENT);
    const reservation = await sessions.reserve();
    expect('release' in reservation).toBe(true);
    if ('release' in reservation) reservation.release();
    expect(closed).toEqual(['abandoned']);
    open('new');
    tick(10 * RECENT);
    // 'new' is old enough to go, 'slow' is not: 'new' makes room.
    const second = await sessions.reserve();
    expect('release' in second).toBe(true);
    if ('release' in second) second.release();
    expect(closed).toEqual(['abandoned', 'new']);
    open('newer');
    // Only 'slow' and one used just now: wait until 'newer' may go, never 'slow'.
    expect(await sessions.reserve()).toEqual({ retryAfterMs: RECENT });
    expect(closed).not.toContain('slow');
    // Once initialized, it is a session like the others.
    slow.initialized = true;
    tick(RECENT);
    expect('release' in (await sessions.reserve())).toBe(true);
    expect(closed).toContain('slow');
    // Never initialized and idle for idleMs: closed by the sweep.
    open('stuck', false);
    tick(30 * RECENT);
    await sessions.sweep();
    expect(closed).toContain('stuck');
  });

  it('never evicts a live client: a session whose stream is open stays, however long since its last request', async () => {
    const { sessions, open, closed, tick } = table(2);
    let end: () => void = () => {};
    sessions.track(open('live'), false, (done) => (end = done));
    open('abandoned');
    tick(10 * RECENT);
    const first = await sessions.reserve();
    if ('release' in first) first.release();
    expect(closed).toEqual(['abandoned']);
    sessions.track(open('other'), false, () => {});
    tick(10 * RECENT);
    expect(await sessions.reserve()).toEqual({ retryAfterMs: RECENT });
    expect(closed).toEqual(['abandoned']);
    // Its stream ended (the client went away): a minute later it may make room.
    end();
    tick(RECENT);
    expect('release' in (await sessions.reserve())).toBe(true);
    expect(closed).toEqual(['abandoned', 'live']);
  });

  it('never lets initializes at once past the cap: each holds its slot until released', async () => {
    const { sessions, open, closed, tick } = table(3);
    for (const id of ['a', 'b', 'c']) open(id);
    tick(RECENT);
    // Ten at once against a full table of sessions not used for a minute: three evicted, three slots, seven refused.
    const slots = await Promise.all(Array.from({ length: 10 }, () => sessions.reserve()));
    const held = slots.flatMap((reservation) => ('release' in reservation ? [reservation.release] : []));
    expect(held).toHaveLength(3);
    expect(slots.filter((reservation) => 'retryAfterMs' in reservation)).toHaveLength(7);
    expect(closed.sort()).toEqual(['a', 'b', 'c']);
    expect('retryAfterMs' in (await sessions.reserve())).toBe(true);
    // Released twice (its session added, then its response closed): one slot back, not two.
    held[0]?.();
    held[0]?.();
    const again = await Promise.all([sessions.reserve(), sessions.reserve()]);
    expect(again.filter((reservation) => 'release' in reservation)).toHaveLength(1);
  });

  it('whatever clients do, no session still initializing, with a call or a stream open, or a request in the last minute is ever evicted', async () => {
    type Op =
      | { kind: 'open'; initialized: boolean }
      | { kind: 'use' | 'call' | 'stream' | 'end' | 'initialized'; at: number }
      | { kind: 'tick'; ms: number }
      | { kind: 'reserve' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant('open' as const), initialized: fc.boolean() }), weight: 2 },
      {
        arbitrary: fc.record({
          kind: fc.constantFrom(
            'use' as const,
            'call' as const,
            'stream' as const,
            'end' as const,
            'initialized' as const,
          ),
          at: fc.nat(20),
        }),
        weight: 1,
      },
      {
        arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 40_000 }) }),
        weight: 1,
      },
      { arbitrary: fc.constant({ kind: 'reserve' as const }), weight: 2 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 60 }), async (ops) => {
        const { sessions, open, closed, tick, now } = table(3);
        const ids: string[] = [];
        const ends = new Map<string, (() => void)[]>();
        for (const step of ops) {
          if (step.kind === 'open') {
            const id = `s${ids.length}`;
            ids.push(id);
            open(id, step.initialized);
          } else if (step.kind === 'tick') tick(step.ms);
          else if (step.kind === 'reserve') {
            // What may not be evicted, as of now: in the table, still initializing, with a call or a
            // stream open, or a recent request.
            const kept = ids.filter((id) => {
              const entry = sessions.peek(id);
              return entry !== undefined && (!entry.initialized || entry.open > 0 || now() - entry.lastUsed < RECENT);
            });
            const reservation = await sessions.reserve();
            if ('release' in reservation) reservation.release();
            for (const id of kept) expect(closed, `${id} evicted`).not.toContain(id);
          } else {
            const id = ids[step.at % Math.max(1, ids.length)];
            const entry = id === undefined ? undefined : sessions.use(id);
            if (id === undefined || entry === undefined) continue;
            if (step.kind === 'call' || step.kind === 'stream')
              sessions.track(entry, step.kind === 'call', (done) => ends.set(id, [...(ends.get(id) ?? []), done]));
            if (step.kind === 'initialized') entry.initialized = true;
            if (step.kind === 'end') ends.get(id)?.shift()?.();
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
