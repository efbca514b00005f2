import { UsageError } from '../shell/exit-codes.js';

/**
 * A file that cannot be read as rows: not text in its encoding, not valid CSV or NDJSON, a header
 * that names a column twice. Found before any request (exit code 2); `advice` says what to do.
 *
 * @example
 * ```ts
 * throw new RowFileError('--file: a.csv is not valid UTF-8 (line 3, byte offset 57)', 'Save it as CSV UTF-8.')
 * ```
 */
export class RowFileError extends UsageError {
  override readonly name = 'RowFileError';

  constructor(
    message: string,
    /** What to do about it, for the `→` line under the error. */
    readonly advice: string,
  ) {
    super(message);
  }
}
