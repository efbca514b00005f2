import { appendFileSync, writeFileSync } from 'node:fs';
import { encodeText, type FileEncoding } from '../rows/text-form.js';

/**
 * A file rows are written back to as they come (the failed, unknown or remaining rows of a
 * send-many run), in the input's encoding, 64 KiB at a time. Made once the first rows are handed
 * over, so a run without such rows leaves no empty file; the head (byte-order mark, header line)
 * goes first. Each batch is written synchronously: a process that must end at once (a second stop
 * signal) still writes what it holds from its `exit` handler with `flushSync()`, where a stream's
 * queued writes would be lost.
 *
 * @example
 * ```ts
 * const failed = new RowSink('campaign.failed.csv', 'to,text,send_error\n', 'utf-8')
 * failed.write('+15557654321,,"UsageError: ..."\n'); await failed.close()
 * ```
 */
export class RowSink {
  #made = false;
  #error: Error | undefined;
  /** Rows not written yet: written 64 KiB at a time, not one small write per row. */
  #pending = '';
  /** How many rows were written. */
  rows = 0;

  constructor(
    /** Where the rows go. */
    readonly path: string,
    private readonly head: string,
    private readonly encoding: FileEncoding,
  ) {}

  /** Appends one row's text (its line break included); throws what writing the file met. */
  write(text: string): undefined {
    if (this.#error) throw this.#error;
    if (this.rows++ === 0) this.#pending = this.head;
    this.#pending += text;
    if (this.#pending.length >= BATCH_CHARS) this.flushSync();
    return undefined;
  }

  /** Writes what is pending now, synchronously; throws what writing the file met. */
  flushSync(): void {
    if (this.#error) throw this.#error;
    if (this.#pending === '') return;
    const bytes = encodeText(this.#pending, this.encoding);
    this.#pending = '';
    try {
      // The first write replaces a file of an earlier run's; the next ones append to it.
      if (this.#made) appendFileSync(this.path, bytes);
      else writeFileSync(this.path, bytes);
      this.#made = true;
    } catch (error) {
      this.#error = new Error(`cannot write ${this.path}: ${(error as Error).message}`, { cause: error });
      throw this.#error;
    }
  }

  /** Writes what is pending (nothing to do if no row came); throws what writing the file met. */
  async close(): Promise<void> {
    this.flushSync();
  }
}

const BATCH_CHARS = 64 * 1024;
