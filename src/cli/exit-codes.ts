import { APIError } from '../api-error.js';
import { DeliveryTimeoutError, MessagingError, OutcomeUnknownError, ValidationError } from '../errors.js';

/**
 * The CLI's exit codes (README, "Command line"), so a script can tell the outcomes apart.
 *
 * @example
 * ```sh
 * tenant-messaging send --from +15550001001 --to +15557654321 --text hi; [ $? -eq 3 ] && echo "may have been sent"
 * ```
 */
export const EXIT = Object.freeze({
  /** The command did what it was asked. */
  ok: 0,
  /** The API (or the network) refused or failed it: nothing more to do than read the message. */
  failed: 1,
  /** Bad usage: an unknown option, a missing value, parameters the SDK refused before any request. */
  usage: 2,
  /** The outcome is unknown: the message may have been sent. Reconcile before sending again. */
  unknown: 3,
  /** The delivery did not reach the status waited for in time. */
  deliveryTimeout: 4,
  /** Interrupted (Ctrl-C). */
  interrupted: 130,
});

/** The exit code for an error a command ended with. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof OutcomeUnknownError) return EXIT.unknown;
  if (error instanceof DeliveryTimeoutError) return EXIT.deliveryTimeout;
  if (error instanceof ValidationError || error instanceof UsageError) return EXIT.usage;
  if (error instanceof APIError || error instanceof MessagingError) return EXIT.failed;
  return EXIT.failed;
}

/**
 * A command line the CLI cannot act on (a missing option, a bad duration), found before any request.
 *
 * @example
 * ```ts
 * throw new UsageError("--timeout must look like 60s, 5m or 1500ms, got 'soon'")
 * ```
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
