/**
 * A stop signal after a bin's outcome is known (`finish()`): the process ends with the code the
 * bin set, never by the signal's default action (which a shell reports as 128 + its number:
 * stopped before done, after messages were sent). Each case is a Node process that loads the kit,
 * sets its code and finishes; the signal comes while it stays open, or as it ends by itself.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { STOP_SIGNALS, type StopSignal } from 'tenant-messaging-bin-kit';
import { describe, expect, it } from 'vitest';

const kit = fileURLToPath(new URL('../../src/stop-signals.ts', import.meta.url));
const SIGNALS = Object.keys(STOP_SIGNALS) as StopSignal[];

/**
 * A bin that finished with `code`. `open`: it holds the event loop for 20 s (a socket closing
 * slowly), and says `ready` at once; otherwise it ends by itself and says `ready` in its own
 * 'exit' listener, so that the signal lands while Node tears the process down.
 */
const finishedBin = (code: number, open: boolean) => `
  const { catchStopSignals } = await import(${JSON.stringify(kit)});
  ${open ? '' : "process.on('exit', () => process.stdout.write('ready\\\\n'));"}
  const stops = catchStopSignals({ announce: () => {}, reasonOf: (signal) => new Error(signal) });
  process.exitCode = ${code};
  stops.finish();
  ${open ? "setTimeout(() => {}, 20_000); process.stdout.write('ready\\\\n');" : ''}
`;

async function signalAfterFinish(code: number, signal: StopSignal, open: boolean) {
  const child = spawn(process.execPath, ['--input-type=module', '--no-warnings', '-e', finishedBin(code, open)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  // The signal again every millisecond until the process is gone: one of them lands in whatever
  // gap there is between its 'exit' and its end.
  let again: NodeJS.Timeout | undefined;
  child.stdout.once('data', () => {
    child.kill(signal);
    again = setInterval(() => child.kill(signal), 1);
  });
  const started = performance.now();
  const [exitCode, killedBy] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('close', (exitCode, killedBy) => {
      clearInterval(again);
      resolve([exitCode, killedBy]);
    }),
  );
  return { exitCode, killedBy, stderr, ms: performance.now() - started };
}

describe('a stop signal once the outcome is known', () => {
  const codes = [0, 5, 3];

  it.concurrent.each(SIGNALS.map((signal, i) => [signal, codes[i] ?? 0] as const))(
    '%s after finish(), the process still open, with code %i: exits with that code, at once',
    async (signal, code) => {
      const run = await signalAfterFinish(code, signal, true);
      expect(run.killedBy, run.stderr).toBeNull();
      expect(run.exitCode, run.stderr).toBe(code);
      // Not the 20 s the open timer would hold it (a hang detector, not a measure).
      expect(run.ms).toBeLessThan(15_000);
    },
  );

  it('as the process ends by itself: exits with the code set, never by the signal (9 processes)', async () => {
    // Without the kit's 'exit' listener, each of them was killed (Node's teardown restores the default action).
    const cases = SIGNALS.flatMap((signal) => codes.map((code) => [signal, code] as const));
    const runs = await Promise.all(cases.map(([signal, code]) => signalAfterFinish(code, signal, false)));
    expect(runs.map((run) => [run.killedBy, run.exitCode])).toEqual(cases.map(([, code]) => [null, code]));
  });
});
