#!/usr/bin/env node
/**
 * The `tenant-messaging-mcp` bin. Parses the command line (command.ts), serves (start.ts), and
 * exits with the code of its outcome (exit.ts). SIGINT, SIGTERM and SIGHUP (a terminal closed, a
 * process manager stopping the job) stop serving: no new call is taken, the calls in flight finish
 * and their results are sent (run.ts), and the process exits 128 + the signal's number (130, 143,
 * 129) within EXIT_BOUND_MS of the signal, whatever is still open.
 */
// Loaded before anything else: the stop signals are caught from the first instant, and
// command.ts needs nothing but node:util to answer --help, --version or a bad flag.
import { catchStopSignals, oldNodeWarning, redactSecrets, secretsInEnv, signalLabel } from 'tenant-messaging-bin-kit';
import { help, parseCommandLine } from './shell/command.js';
import { EXIT_BOUND_MS, STOP_EXIT_MS } from './shell/exit.js';

const stops = catchStopSignals({
  announce: (text) => process.stderr.write(`\n${text}\n`),
  reasonOf: (signal) => new Error(`Interrupted (${signalLabel(signal)})`),
});
// The hard bound: whatever is still open once a stop signal came (a send past the grace period
// still waiting on the API) does not keep the process past EXIT_BOUND_MS.
stops.signal.addEventListener('abort', () => {
  setTimeout(() => process.exit(stops.exitCode()), EXIT_BOUND_MS).unref();
});

async function main(argv: readonly string[]): Promise<void> {
  // Below `engines` the server still starts, but says so once, on stderr (stdout is the protocol).
  const warning = oldNodeWarning('tenant-messaging-mcp');
  if (warning) process.stderr.write(warning);
  let command: ReturnType<typeof parseCommandLine> | undefined;
  try {
    command = parseCommandLine(argv, secretsInEnv(process.env));
    if (command.kind === 'help') return void process.stdout.write(help());
    if (command.kind === 'version') {
      const { VERSION } = await import('./version.js');
      return void process.stdout.write(`${VERSION}\n`);
    }
    // A stop signal that came while the modules loaded: start nothing (its exit code below).
    const { startMcp } = await import('./serve/start.js');
    if (!stops.caught()) await startMcp(command.flags, command.credentials, stops.signal);
  } catch (error) {
    const { exitCodeOf, report } = await import('./answers/report.js');
    const text = report(error, command?.kind === 'serve' ? command.credentials : {});
    process.stderr.write(redactSecrets(text, secretsInEnv(process.env)));
    process.exitCode = stops.exitCode() ?? exitCodeOf(error);
    return;
  } finally {
    // What is still open closes after this: a stop signal then ends with the code set, not 128 + n.
    stops.finish();
  }
  if (stops.caught()) {
    process.exitCode = stops.exitCode();
    // Served and closed: what is left open (a call past the grace period) is not waited for long.
    setTimeout(() => process.exit(stops.exitCode()), STOP_EXIT_MS).unref();
  }
}

void main(process.argv.slice(2));
