/**
 * How `tenant-messaging-mcp` ends: its exit codes, the stop signals it serves until, and the error
 * of a command line it cannot act on. Imports nothing: main.ts loads it before anything else, so
 * its signal handlers are in place from the first instant.
 */

/**
 * The exit codes, so a process manager can tell the outcomes apart.
 *
 * @example
 * ```ts
 * process.exitCode = EXIT.usage
 * ```
 */
export const EXIT = Object.freeze({
  /** The client went away (stdin ended): served as asked. */
  ok: 0,
  /** The server could not start or failed (the API, the network, a port in use). */
  failed: 1,
  /** Bad usage: an unknown flag, a missing value, missing credentials, a bad limit. Nothing started. */
  usage: 2,
});

/**
 * The signals the server stops on, with their POSIX numbers (the same on Linux and macOS): the
 * exit code is 128 + the number (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP).
 *
 * @example
 * ```ts
 * 128 + STOP_SIGNALS.SIGTERM // 143
 * ```
 */
export const STOP_SIGNALS = Object.freeze({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 });

/** One of the signals the server stops on. */
export type StopSignal = keyof typeof STOP_SIGNALS;

/** How a person knows the signal: Ctrl-C for SIGINT, its name otherwise. */
export const signalLabel = (signal: StopSignal): string => (signal === 'SIGINT' ? 'Ctrl-C' : signal);

/**
 * A command line or an environment the server cannot act on (an unknown flag, a bad limit, no
 * token for `--http`), found before anything starts: exit code 2.
 *
 * @example
 * ```ts
 * throw new UsageError("--max-sends must be a whole number >= 1, got 'many'")
 * ```
 */
export class UsageError extends Error {
  override readonly name: string = 'UsageError';
}
