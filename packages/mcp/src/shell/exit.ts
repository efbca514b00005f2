/**
 * How `tenant-messaging-mcp` ends: its exit codes (the stop signals and the usage error are the
 * bins' shared ones, in tenant-messaging-bin-kit).
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
 * How long after a stop signal the process has exited at the latest: the grace period of the
 * calls in flight (drain.ts, 7 s), the sending of their results (http.ts, 1 s) and the closing of
 * the rest. Under the 10 s a container runtime gives before SIGKILL.
 *
 * @default 9_000
 * @example
 * ```ts
 * setTimeout(() => process.exit(143), EXIT_BOUND_MS).unref()
 * ```
 */
export const EXIT_BOUND_MS = 9_000;

/**
 * Once served and closed after a stop signal, how long what is still open (the API request of a
 * send past the grace period) may keep the process.
 *
 * @example
 * ```ts
 * setTimeout(() => process.exit(143), STOP_EXIT_MS).unref()
 * ```
 */
export const STOP_EXIT_MS = 500;
