/**
 * A command line or an environment a bin cannot act on (an unknown flag, a bad value, missing
 * credentials), found before any request: exit code 2.
 *
 * @example
 * ```ts
 * throw new UsageError("--timeout must look like 60s, 5m or 1500ms, got 'soon'")
 * ```
 */
export class UsageError extends Error {
  override readonly name: string = 'UsageError';
}
