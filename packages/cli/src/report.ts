import { styleText } from 'node:util';
import { explain } from './hints.js';
import { RowFileError } from './row-file-error.js';

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
  const name = error instanceof Error ? error.name : 'Error';
  // In the command line's words, with advice naming the command, the id or the scope (hints.ts);
  // a file that cannot be read says how to fix the file.
  const { message, advice: hint } = explain(error);
  const advice = error instanceof RowFileError ? error.advice : hint;
  const head = styleText(['bold', 'red'], `${name}:`, { stream });
  return `${head} ${message}${advice ? `\n${styleText('yellow', `→ ${advice}`, { stream })}` : ''}\n`;
}
