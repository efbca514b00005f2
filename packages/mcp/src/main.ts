#!/usr/bin/env node
/**
 * The `tenant-messaging-mcp` bin. Parses the command line (command.ts), serves (start.ts), and
 * exits with the code of its outcome (exit.ts). SIGINT, SIGTERM and SIGHUP (a terminal closed, a
 * process manager stopping the job) stop serving: every session is closed, a send in flight ends
 * as the SDK reports it, and the process exits 128 + the signal's number (130, 143, 129).
 */
// Loaded before anything else: the stop signals are caught from the first instant, and
// command.ts needs nothing but node:util to answer --help, --version or a bad flag.
import { catchStopSignals, signalLabel } from 'tenant-messaging-bin-kit';
import { help, parseCommandLine } from './command.js';

const stops = catchStopSignals({
  announce: (text) => process.stderr.write(`\n${text}\n`),
  reasonOf: (signal) => new Error(`Interrupted (${signalLabel(signal)})`),
});

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
    if (!stops.caught()) await startMcp(command.flags, command.credentials, stops.signal);
  } catch (error) {
    const { exitCodeOf, report } = await import('./report.js');
    process.stderr.write(report(error, command?.kind === 'serve' ? command.credentials : {}));
    process.exitCode = stops.exitCode() ?? exitCodeOf(error);
    return;
  } finally {
    stops.release();
  }
  if (stops.caught()) process.exitCode = stops.exitCode();
}

void main(process.argv.slice(2));
