/**
 * Files share their worker process (vitest.config.ts, `isolate: false`): a file that leaves fake
 * timers or a fake `Date` installed stalls every wait of the files after it in that worker, far
 * from the cause. Checked when each file ends and again when the next one starts (a spy on a faked
 * timer can put the fake back after the file's own hooks: vitest restores it between files): the
 * run fails naming the file that left them, and the real ones are put back.
 */
import { afterAll, beforeAll, expect } from 'vitest';

const FAKEABLE = [
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
  'queueMicrotask',
  'Date',
  'performance',
] as const;

interface Worker {
  /** The real globals, taken when the worker's first file starts: nothing has faked them yet. */
  readonly real: Record<string, unknown>;
  /** The file that ran last in this worker. */
  last?: string | undefined;
}

const globals = globalThis as unknown as Record<string, unknown>;
const KEY = Symbol.for('tenant-messaging.test.real-timers');
const holder = globalThis as unknown as Record<symbol, Worker | undefined>;
holder[KEY] ??= {
  real: { ...Object.fromEntries(FAKEABLE.map((name) => [name, globals[name]])), 'performance.now': performance.now },
};
const worker = holder[KEY];

/** Puts back every faked global; returns their names. */
function putBack(): string[] {
  const left: string[] = FAKEABLE.filter((name) => globals[name] !== worker.real[name]);
  for (const name of left) globals[name] = worker.real[name];
  if (performance.now !== worker.real['performance.now']) {
    performance.now = worker.real['performance.now'] as typeof performance.now;
    left.push('performance.now');
  }
  return left;
}

const HOW =
  'uninstall its fake timers in afterEach (vi.useRealTimers(), clock.uninstall(), mock.timers.reset()), and never vi.spyOn a faked timer';

beforeAll(() => {
  const left = putBack();
  if (left.length > 0)
    throw new Error(`${worker.last ?? 'a file before this one'} left ${left.join(', ')} faked: ${HOW}`);
});

afterAll(() => {
  worker.last = expect.getState().testPath;
  const left = putBack();
  if (left.length > 0) throw new Error(`this file left ${left.join(', ')} faked: ${HOW}`);
});
