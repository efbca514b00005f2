#!/usr/bin/env node
/**
 * The `tenant-messaging-mcp` bin. Parses the command line (command.ts), serves (start.ts), and
 * exits with the code of its outcome (exit.ts). SIGINT, SIGTERM and SIGHUP (a terminal closed, a
 * process manager stopping the job) stop serving: every session is closed, a send in flight ends
 * as the SDK reports it, and the process exits 128 + the signal's number (130, 143, 129).
 */
// Loaded before the handlers: they import nothing but node:util.
import { help, parseCommandLine } from './command.js';
import { STOP_SIGNALS, type StopSignal, signalLabel } from './exit.js';

// Stop signals are handled from the first instant: one that came while the modules below load
// would otherwise kill the process by its default action (no message, no exit code of ours).
const controller = new AbortController();
let caught: StopSignal | undefined;
const onSignal = (signal: StopSignal) => {
  if (caught) process.exit(128 + STOP_SIGNALS[signal]); // a second signal: out at once
  caught = signal;
  // A hangup means the terminal is gone: writing to it fails (EIO), and an unhandled stream error
  // would end the process before the sessions are closed.
  if (signal === 'SIGHUP') for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  process.stderr.write(`\nInterrupted (${signalLabel(signal)}): stopping.\n`);
  controller.abort(new Error(`Interrupted (${signalLabel(signal)})`));
};
const signals = Object.keys(STOP_SIGNALS) as StopSignal[];
for (const signal of signals) process.on(signal, onSignal);

async function main(argv: readonly string[]): Promise<void> {
  let command: ReturnType<typeof parseCommandLine> | undefined;
  try {
    command = parseCommandLine(argv);
    if (command.kind === 'help') return void process.stdout.write(help());
    if (command.kind === 'version') {
      const { VERSION } = await import('./version.js');
      return void process.stdout.write(`${VERSION}\n`);
    }
    // A stop signal that came while the modules loaded: start nothing (its exit code below).
    const { startMcp } = await import('./start.js');
    if (!caught) await startMcp(command.flags, command.credentials, controller.signal);
  } catch (error) {
    const { exitCodeOf, report } = await import('./report.js');
    process.stderr.write(report(error, command?.kind === 'serve' ? command.credentials : {}));
    process.exitCode = caught ? 128 + STOP_SIGNALS[caught] : exitCodeOf(error);
    return;
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
  if (caught) process.exitCode = 128 + STOP_SIGNALS[caught];
}

void main(process.argv.slice(2));
