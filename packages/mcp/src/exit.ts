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
