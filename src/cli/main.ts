#!/usr/bin/env node
/**
 * The `tenant-messaging` bin. Parses the command line (program.ts), runs the command, and exits
 * with the code of its outcome (exit-codes.ts). Ctrl-C aborts the command's requests through its
 * signal: a send in flight then ends as the SDK reports it (never sent, or unknown), and the
 * process exits 130 once nothing is left running.
 */
// Ctrl-C is handled from the first instant: a signal that came while the modules below load would
// otherwise kill the process by its default action (no message, no exit code 130).
const INTERRUPTED = 130; // EXIT.interrupted (exit-codes.ts), known before any module is loaded
const controller = new AbortController();
let interrupted = false;
const onSignal = () => {
  if (interrupted) process.exit(INTERRUPTED); // a second Ctrl-C: out at once
  interrupted = true;
  process.stderr.write('\nInterrupted: stopping.\n');
  controller.abort(new Error('Interrupted (Ctrl-C)'));
};
process.on('SIGINT', onSignal);

async function main(): Promise<void> {
  const [{ CommanderError }, { sandboxMain }, { EXIT, exitCodeOf }, { program }, { report }] = await Promise.all([
    import('commander'),
    import('../sandbox/cli-main.js'),
    import('./exit-codes.js'),
    import('./program.js'),
    import('./report.js'),
  ]);
  const cli = program(controller.signal, async (args) => {
    // A Ctrl-C that came while the modules loaded: start nothing (exit code 130 below).
    if (interrupted) return;
    // The sandbox stops itself on Ctrl-C: its handler is added (synchronously, as it starts)
    // before this one is removed. With no SIGINT listener in between, Node stops watching the
    // signal, and one already caught but not yet dispatched is lost: the sandbox then ran on.
    const running = sandboxMain(args);
    process.off('SIGINT', onSignal);
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
    process.stderr.write(report(interrupted ? new Error('Interrupted (Ctrl-C)', { cause: error }) : error));
    process.exitCode = interrupted ? EXIT.interrupted : exitCodeOf(error);
    return;
  } finally {
    process.off('SIGINT', onSignal);
  }
  if (interrupted) process.exitCode = EXIT.interrupted;
}

void main();
