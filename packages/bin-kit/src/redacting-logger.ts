/**
 * The SDK's `Logger` as both bins give it to their client: one `[level] message {fields}` line
 * per call, redacted by value (redact.ts) after the fields are turned into JSON, so a secret in a
 * field is found however it was spelled.
 */
import type { Logger } from 'tenant-messaging';
import { redactSecrets } from './redact.js';

/**
 * A Logger that writes `[level] message {fields as JSON}` lines through `write`, every secret of
 * `secrets` redacted (in the fields too). `secrets` is read at each line: a bin that learns a
 * secret later (a file read by a command) adds it to the same array.
 *
 * @example
 * ```ts
 * const logger = redactingLogger([apiKey], (line) => process.stderr.write(line))
 * ```
 */
export function redactingLogger(secrets: readonly string[], write: (line: string) => void): Logger {
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      let tail = '';
      if (fields !== undefined) {
        try {
          tail = ` ${JSON.stringify(fields)}`;
        } catch {
          tail = ' (fields that cannot be shown)';
        }
      }
      write(`${redactSecrets(`[${level}] ${message}${tail}`, secrets)}\n`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
