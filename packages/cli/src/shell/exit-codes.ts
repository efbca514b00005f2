import { APIError, DeliveryTimeoutError, MessagingError, OutcomeUnknownError, ValidationError } from 'tenant-messaging';
import { UsageError } from 'tenant-messaging-bin-kit';
import { InterruptedError, ReaderGoneError } from './interrupt.js';
import { SentThenError } from './sent-then-error.js';

// The bins' shared usage error (a command line found wrong before any request: exit code 2).
export { SentThenError, UsageError };

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
  /** `wait <log-id>`: the delivery did not reach the status waited for in time. */
  deliveryTimeout: 4,
  /**
   * Sent: the message was accepted (its log id is printed: on stdout with `--json`), but what was
   * asked after the send did not end well: the wait or the tracking timed out, could not read the
   * log (a 403, the network), or a stop signal cut it. Never send it again: follow its log id.
   */
  sent: 5,
  /**
   * Interrupted by Ctrl-C (SIGINT). Every stop signal exits 128 + its number: SIGTERM 143, SIGHUP 129
   * (`InterruptedError.exitCode`).
   */
  interrupted: 130,
});

/**
 * The code of an error that says a message was sent (5, or the batch's own code) or may have
 * been (3), undefined for any other: these win over a stop signal's code, which would say that
 * nothing was sent.
 *
 * @example
 * ```ts
 * process.exitCode = sendingCodeOf(error) ?? stops.exitCode() ?? exitCodeOf(error)
 * ```
 */
export function sendingCodeOf(error: unknown): number | undefined {
  if (error instanceof SentThenError) return error.exitCode;
  if (error instanceof OutcomeUnknownError) return EXIT.unknown;
  return undefined;
}

/** The exit code for an error a command ended with. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof SentThenError) return error.exitCode;
  if (error instanceof InterruptedError || error instanceof ReaderGoneError) return error.exitCode;
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
  /** Rows refused (by the checks or the API): safe to fix and send again. */
  readonly failed: number;
  /** Sent messages that did not reach the status tracked for: timed out, failed, or could not be read. */
  readonly unconfirmed: number;
}

/**
 * The one exit code of a batch that ended with several outcomes at once: the most urgent wins.
 * Bad usage (2) never gets here: it is found before any request and nothing is sent. Then:
 * interrupted (128 + the signal: the run is incomplete, send the remaining rows' file), unknown (3:
 * rows may have been sent, reconcile before sending them again), failed (1: fix the refused rows
 * and send them; the rows sent are not in that file), sent (5: every row sent, not every delivery
 * confirmed by --track), 0.
 *
 * @example
 * ```ts
 * batchExitCode({ unknown: 0, failed: 2, unconfirmed: 5 }) // 1: the refused rows need fixing first
 * ```
 */
export function batchExitCode(outcome: BatchOutcome): number {
  if (outcome.interrupted !== undefined) return outcome.interrupted;
  if (outcome.unknown > 0) return EXIT.unknown;
  if (outcome.failed > 0) return EXIT.failed;
  if (outcome.unconfirmed > 0) return EXIT.sent;
  return EXIT.ok;
}
