/**
 * A stop signal after a bin's outcome is known (`finish()`), while the process still closes what it
 * opened: the process ends with the code the bin set, at once, never by the signal's default
 * action (which a shell reports as 128 + its number: stopped before done, after messages were
 * sent). Each case is a Node process that loads the kit, sets its code, finishes and stays open.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { STOP_SIGNALS, type StopSignal } from 'tenant-messaging-bin-kit';
import { describe, expect, it } from 'vitest';

const kit = fileURLToPath(new URL('../src/stop-signals.ts', import.meta.url));

/** A bin that finished with `code` and holds the event loop for 20 s (a socket closing slowly). */
const finishedBin = (code: number) => `
  const { catchStopSignals } = await import(${JSON.stringify(kit)});
  const stops = catchStopSignals({ announce: () => {}, reasonOf: (signal) => new Error(signal) });
  process.exitCode = ${code};
  stops.finish();
  setTimeout(() => {}, 20_000);
  process.stdout.write('finished\\n');
`;

async function signalAfterFinish(code: number, signal: StopSignal) {
  const child = spawn(process.execPath, ['--input-type=module', '--no-warnings', '-e', finishedBin(code)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  child.stdout.once('data', () => child.kill(signal));
  const started = performance.now();
  const [exitCode, killedBy] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('close', (exitCode, killedBy) => resolve([exitCode, killedBy])),
  );
  return { exitCode, killedBy, stderr, ms: performance.now() - started };
}

describe('a stop signal once the outcome is known', () => {
  const cases = Object.keys(STOP_SIGNALS).map((signal, i) => [signal as StopSignal, [0, 5, 3][i] ?? 0] as const);

  it.concurrent.each(cases)('%s after finish() with code %i: exits with that code, at once', async (signal, code) => {
    const run = await signalAfterFinish(code, signal);
    expect(run.killedBy, run.stderr).toBeNull();
    expect(run.exitCode, run.stderr).toBe(code);
    // Not the 20 s the open timer would hold it (a hang detector, not a measure).
    expect(run.ms).toBeLessThan(15_000);
  });
});
