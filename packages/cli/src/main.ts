#!/usr/bin/env node
import { catchStopSignals, oldNodeWarning, secretsInEnv } from 'tenant-messaging-bin-kit';
/**
 * The `tenant-messaging` bin. Parses the command line (program.ts), runs the command, and exits
 * with the code of its outcome (exit-codes.ts). Ctrl-C, SIGTERM and SIGHUP (a terminal closed, a
 * process manager stopping the job) abort the command's requests through its signal: a send in
 * flight then ends as the SDK reports it (sent, never sent, or unknown), nothing new starts, and
 * the process exits 128 + the signal's number (130, 143, 129) once nothing is left running.
 */
// The only modules loaded before the handlers: they import the bins' kit alone.
import { announceStop, InterruptedError, ReaderGoneError } from './shell/interrupt.js';
import { keepSecrets, redactWrites, secretsInArgv } from './shell/secrets.js';

// Stop signals are handled from the first instant: one that came while the modules below load
// would otherwise kill the process by its default action (no message, no summary, no exit code).
// A hangup's stream errors are silenced so the rows not attempted are still written down.
const stops = catchStopSignals({ announce: announceStop, reasonOf: (signal) => new InterruptedError(signal) });
// Stdout's reader gone (`| head -1`): the command stops as after a stop signal, recording what it
// sent, says nothing and exits 0. An EPIPE was an unhandled stream error: a stack trace, exit 1.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  stops.stop(new ReaderGoneError());
});

// No secret in what the bin writes, in any encoding, whoever writes it (ours, commander, the
// progress bar, the SDK's log): the environment's and the command line's from the start, the
// files' once read (credentials.ts, webhook-secret.ts).
keepSecrets([...secretsInEnv(process.env), ...secretsInArgv(process.argv)]);
redactWrites(process.stderr);
const releaseStdout = redactWrites(process.stdout);

async function main(): Promise<void> {
  // Below `engines` the bin still runs (colour and output behave), but says so once, on stderr.
  const warning = oldNodeWarning('tenant-messaging');
  if (warning) process.stderr.write(warning);
  const [{ CommanderError }, { EXIT, exitCodeOf, sendingCodeOf }, { program }, { report }] = await Promise.all([
    import('commander'),
    import('./shell/exit-codes.js'),
    import('./program/program.js'),
    import('./output/report.js'),
  ]);
  const cli = program(stops.signal, async (args) => {
    // Loaded by the one command that runs it: every other command starts faster and 13 MB smaller.
    const { sandboxMain } = await import('./program/sandbox-main.js');
    // A stop signal that came while the modules loaded: start nothing (its exit code below).
    if (stops.caught()) return;
    // The sandbox prints its own test keys, to be exported: the environment may hold one already.
    releaseStdout();
    // The sandbox stops itself on SIGINT and SIGTERM: its handlers are added (synchronously, as it
    // starts) before these are removed. With no listener in between, Node stops watching the
    // signal, and one already caught but not yet dispatched is lost: the sandbox then ran on.
    const running = sandboxMain(args);
    stops.release();
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
    // What failed after a send says "sent" (5), an unknown outcome 3, whatever came: the message
    // was (or may have been) sent, and 128 + n would say that nothing was.
    const quiet = (stops.caught() && error instanceof InterruptedError) || error instanceof ReaderGoneError;
    if (!quiet) process.stderr.write(report(error));
    process.exitCode = sendingCodeOf(error) ?? stops.exitCode() ?? exitCodeOf(error);
    return;
  } finally {
    // What is still open closes after this: a stop signal then ends with the code set, not 128 + n.
    stops.finish();
  }
  // A command that said its code keeps it (a send that finished after the signal: 0, it was sent).
  if (stops.caught() && process.exitCode === undefined) process.exitCode = stops.exitCode();
}

void main();
