#!/usr/bin/env node
/**
 * The `tenant-messaging` bin. Parses the command line (program.ts), runs the command, and exits
 * with the code of its outcome (exit-codes.ts). Ctrl-C, SIGTERM and SIGHUP (a terminal closed, a
 * process manager stopping the job) abort the command's requests through its signal: a send in
 * flight then ends as the SDK reports it (sent, never sent, or unknown), nothing new starts, and
 * the process exits 128 + the signal's number (130, 143, 129) once nothing is left running.
 */
// The only module loaded before the handlers: it imports nothing.
import { announceStop, InterruptedError, STOP_SIGNALS, type StopSignal, signalLabel } from './interrupt.js';

// Stop signals are handled from the first instant: one that came while the modules below load
// would otherwise kill the process by its default action (no message, no summary, no exit code).
const controller = new AbortController();
let caught: StopSignal | undefined;
const onSignal = (signal: StopSignal) => {
  if (caught) process.exit(128 + STOP_SIGNALS[signal]); // a second signal: out at once
  caught = signal;
  // A hangup means the terminal is gone: writing to it fails (EIO), and an unhandled stream error
  // would end the process before the rows not attempted are written down.
  if (signal === 'SIGHUP') for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  announceStop(`Interrupted (${signalLabel(signal)}): stopping.`);
  controller.abort(new InterruptedError(signal));
};
const signals = Object.keys(STOP_SIGNALS) as StopSignal[];
for (const signal of signals) process.on(signal, onSignal);
const releaseSignals = () => {
  for (const signal of signals) process.off(signal, onSignal);
};

async function main(): Promise<void> {
  const [{ CommanderError }, { EXIT, exitCodeOf }, { program }, { report }] = await Promise.all([
    import('commander'),
    import('./exit-codes.js'),
    import('./program.js'),
    import('./report.js'),
  ]);
  const cli = program(controller.signal, async (args) => {
    // Loaded by the one command that runs it: every other command starts faster and 13 MB smaller.
    const { sandboxMain } = await import('./sandbox-main.js');
    // A stop signal that came while the modules loaded: start nothing (its exit code below).
    if (caught) return;
    // The sandbox stops itself on SIGINT and SIGTERM: its handlers are added (synchronously, as it
    // starts) before these are removed. With no listener in between, Node stops watching the
    // signal, and one already caught but not yet dispatched is lost: the sandbox then ran on.
    const running = sandboxMain(args);
    releaseSignals();
    await running;
  });
  try {
    await cli.parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here too, with code 0.
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    // After a stop signal the exit code says so (128 + its number); an error other than the stop
    // itself (an unknown send outcome, say) is still reported, not hidden behind "Interrupted".
    if (!(caught && error instanceof InterruptedError)) process.stderr.write(report(error));
    process.exitCode = caught ? 128 + STOP_SIGNALS[caught] : exitCodeOf(error);
    return;
  } finally {
    releaseSignals();
  }
  if (caught) process.exitCode = 128 + STOP_SIGNALS[caught];
}

void main();
