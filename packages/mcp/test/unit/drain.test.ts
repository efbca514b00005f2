/**
 * Drain holds nothing of a call once it is answered: a long-running `--http` server runs calls for
 * days, and a result kept per call would grow its memory without bound. And a stop still cuts the
 * calls that outlive its grace period.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Drain } from '../../src/state/drain.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('Drain', () => {
  it('keeps nothing of 1,000 answered calls: none counted in flight, what each call held collectable', async () => {
    const drain = new Drain();
    const refs: WeakRef<object>[] = [];
    for (let i = 0; i < 1_000; i++) {
      // What a call holds (its arguments, its tool), as its work and its cut both see it.
      const args = { call: i, payload: new Array(100).fill(i) };
      refs.push(new WeakRef(args));
      await drain.run(
        async () => args.call,
        () => -args.call,
      );
    }
    // A WeakRef holds its target until the job that made it ends; two collections a turn apart.
    for (let round = 0; round < 2; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    // A leak keeps every one of them; the last few calls' objects may still be reachable from the
    // engine's own bookkeeping when the collector runs.
    expect(refs.filter((ref) => ref.deref() !== undefined).length).toBeLessThan(10);
    expect(drain.inFlight).toBe(0);
  });

  it('cuts a call still running when the grace period ends, then holds none', async () => {
    const drain = new Drain();
    const done = drain.run(
      async () => 'done',
      () => 'cut',
    );
    const never = drain.run(
      () => new Promise<string>(() => {}),
      () => 'cut',
    );
    expect(drain.inFlight).toBe(2);
    await drain.stop(0);
    expect([await done, await never]).toEqual(['done', 'cut']);
    expect(drain.inFlight).toBe(0);
  });
});
