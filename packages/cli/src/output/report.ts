import { paint } from 'tenant-messaging-bin-kit';
import { RowFileError } from '../rows/row-file-error.js';
import { InterruptedError } from '../shell/interrupt.js';
import { SentThenError, sentWords } from '../shell/sent-then-error.js';
import { explain } from './hints.js';

/**
 * An error as a person at a terminal needs it: its class, its message, and what to do next.
 * The SDK's messages never carry the API key, and nothing here adds it.
 *
 * @example
 * ```ts
 * process.stderr.write(report(error))
 * ```
 */
export function report(error: unknown, stream: NodeJS.WriteStream = process.stderr): string {
  // What failed after a send is reported as itself, followed by what was sent and the exit code.
  if (error instanceof SentThenError) {
    const ids = error.logIds;
    const follow =
      ids.length === 1
        ? `do not send it again; follow it with \`tenant-messaging wait ${ids[0]}\``
        : 'do not send them again; look them up by their log ids with `tenant-messaging get`';
    const sent = `Sent: ${sentWords(ids)} (exit code ${error.exitCode}): ${follow}.`;
    // A stop signal was announced already ("Interrupted (SIGTERM): stopping."): no error to report.
    const cause = error.cause instanceof InterruptedError ? '' : report(error.cause, stream);
    return `${cause}${paint('yellow', `→ ${sent}`, stream)}\n`;
  }
  const name = error instanceof Error ? error.name : 'Error';
  // In the command line's words, with advice naming the command, the id or the scope (hints.ts);
  // a file that cannot be read says how to fix the file.
  const { message, advice: hint } = explain(error);
  const advice = error instanceof RowFileError ? error.advice : hint;
  const head = paint(['bold', 'red'], `${name}:`, stream);
  return `${head} ${message}${advice ? `\n${paint('yellow', `→ ${advice}`, stream)}` : ''}\n`;
}
