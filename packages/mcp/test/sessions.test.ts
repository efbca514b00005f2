/**
 * The session table of `--http` (sessions.ts), on a fake clock: an idle session (nothing open, no
 * request for idleMs) is closed; one with a stream open is not; at the cap, the least recently used
 * session without a call in flight makes room, and only sessions that all have a call in flight
 * leave no room; initializes at once never hold more than the cap between them.
 */
import { describe, expect, it } from 'vitest';
import { SessionTable } from '../src/sessions.js';

function table(max: number) {
  let now = 0;
  const closed: string[] = [];
  const sessions = new SessionTable({ max, idleMs: 1_000, now: () => now });
  const open = (id: string) => {
    const entry = sessions.entry(async () => void closed.push(id));
    sessions.add(id, entry);
    return entry;
  };
  return { sessions, open, closed, tick: (ms: number) => (now += ms) };
}

describe('SessionTable', () => {
  it('closes a session idle for idleMs, not one whose stream is open', async () => {
    const { sessions, open, closed, tick } = table(10);
    open('abandoned');
    let end: () => void = () => {};
    sessions.track(open('streaming'), false, (done) => (end = done));
    tick(999);
    await sessions.sweep();
    expect(closed).toEqual([]);
    tick(1);
    await sessions.sweep();
    expect(closed).toEqual(['abandoned']);
    end();
    tick(1_000);
    await sessions.sweep();
    expect(closed).toEqual(['abandoned', 'streaming']);
    expect(sessions.size).toBe(0);
  });

  it('at the cap, evicts the least recently used session without a call in flight', async () => {
    const { sessions, open, closed, tick } = table(3);
    const first = open('first');
    tick(1);
    open('second');
    tick(1);
    open('third');
    sessions.track(first, true, () => {}); // a call in flight: never evicted
    tick(1);
    sessions.use('second');
    const release = await sessions.reserve();
    expect(release).toBeDefined();
    release?.();
    expect(closed).toEqual(['third']);
    expect(sessions.use('third')).toBeUndefined();
    open('fourth');
    sessions.track(sessions.use('second') ?? first, true, () => {});
    sessions.track(sessions.use('fourth') ?? first, true, () => {});
    expect(await sessions.reserve()).toBeUndefined();
    expect(sessions.callsInFlight()).toBe(3);
  });

  it('never lets initializes at once past the cap: each holds its slot until released', async () => {
    const { sessions, open, closed } = table(3);
    for (const id of ['a', 'b', 'c']) open(id);
    // Ten at once against a full table of idle sessions: three evicted, three slots, seven refused.
    const slots = await Promise.all(Array.from({ length: 10 }, () => sessions.reserve()));
    const held = slots.filter((release) => release !== undefined);
    expect(held).toHaveLength(3);
    expect(closed.sort()).toEqual(['a', 'b', 'c']);
    expect(await sessions.reserve()).toBeUndefined();
    // Released twice (its session added, then its response closed): one slot back, not two.
    held[0]?.();
    held[0]?.();
    const again = await Promise.all([sessions.reserve(), sessions.reserve()]);
    expect(again.filter((release) => release !== undefined)).toHaveLength(1);
  });
});
