import { APIError, DeliveryTimeoutError, MessagingError, OutcomeUnknownError, ValidationError } from 'tenant-messaging';
import { UsageError } from 'tenant-messaging-bin-kit';
import { InterruptedError } from './interrupt.js';

// The bins' shared usage error (a command line found wrong before any request: exit code 2).
export { UsageError };

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
  /**
   * Interrupted by Ctrl-C (SIGINT). Every stop signal exits 128 + its number: SIGTERM 143, SIGHUP 129
   * (`InterruptedError.exitCode`).
   */
  interrupted: 130,
});

/** The exit code for an error a command ended with. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof InterruptedError) return error.exitCode;
  if (error instanceof OutcomeUnknownError) return EXIT.unknown;
  if (error instanceof DeliveryTimeoutError) return EXIT.deliveryTimeout;
  if (error instanceof ValidationError || error instanceof UsageError) return EXIT.usage;
  if (error instanceof APIError || error instanceof MessagingError) return EXIT.failed;
  return EXIT.failed;
}

/** What a batch (`send-many`, with or without `--track`) ended with, for {@link batchExitCode}. */
export interface BatchOutcome {
  /** The stop signal's exit code (128 + its number), if one came. */
  readonly interrupted?: number | undefined;
  /** Rows whose outcome is unknown (they may have been sent). */
  readonly unknown: number;
  /** Rows refused (by the checks or the API), and sent messages whose delivery failed or could not be followed. */
  readonly failed: number;
  /** Sent messages that did not reach the status tracked for in time. */
  readonly timedOut: number;
}

/**
 * The one exit code of a batch that ended with several outcomes at once: the most urgent wins.
 * Bad usage (2) never gets here: it is found before any request and nothing is sent. Then:
 * interrupted (128 + the signal: the run is incomplete, send the remaining rows' file), unknown (3:
 * rows may have been sent, reconcile before sending them again), failed (1: fix the refused rows
 * and send them), delivery timeout (4: everything was sent, not all confirmed in time), 0.
 *
 * @example
 * ```ts
 * batchExitCode({ unknown: 0, failed: 2, timedOut: 5 }) // 1: the refused rows need fixing first
 * ```
 */
export function batchExitCode(outcome: BatchOutcome): number {
  if (outcome.interrupted !== undefined) return outcome.interrupted;
  if (outcome.unknown > 0) return EXIT.unknown;
  if (outcome.failed > 0) return EXIT.failed;
  if (outcome.timedOut > 0) return EXIT.deliveryTimeout;
  return EXIT.ok;
}
