#!/usr/bin/env node
/**
 * The `tenant-messaging` bin. Parses the command line (program.ts), runs the command, and exits
 * with the code of its outcome (exit-codes.ts). Ctrl-C aborts the command's requests through its
 * signal: a send in flight then ends as the SDK reports it (never sent, or unknown), and the
 * process exits 130 once nothing is left running.
 */
import { CommanderError } from 'commander';
import { sandboxMain } from '../sandbox/cli-main.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import { program } from './program.js';
import { report } from './report.js';

async function main(): Promise<void> {
  const controller = new AbortController();
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(EXIT.interrupted); // a second Ctrl-C: out at once
    interrupted = true;
    process.stderr.write('\nInterrupted: stopping.\n');
    controller.abort(new Error('Interrupted (Ctrl-C)'));
  };
  const cli = program(controller.signal, async (args) => {
    // The sandbox stops itself on Ctrl-C.
    process.off('SIGINT', onSignal);
    await sandboxMain(args);
  });
  process.on('SIGINT', onSignal);
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
