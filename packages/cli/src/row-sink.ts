import { createWriteStream, type WriteStream } from 'node:fs';
import { encodeText, type FileEncoding } from './text-form.js';

/**
 * A file rows are written back to as they come (the failed, unknown or remaining rows of a
 * send-many run), in the input's encoding, 64 KiB at a time. Made once the first rows are handed
 * over, so a run without such rows leaves no empty file; the head (byte-order mark, header line)
 * goes first. `write` returns a promise when the disk is behind, for the caller to wait on:
 * nothing piles up in memory.
 *
 * @example
 * ```ts
 * const failed = new RowSink('campaign.failed.csv', 'to,text,send_error\n', 'utf-8')
 * await failed.write('+15557654321,,"UsageError: ..."\n'); await failed.close()
 * ```
 */
export class RowSink {
  #stream: WriteStream | undefined;
  #error: Error | undefined;
  /** Rows not handed to the stream yet: written 64 KiB at a time, not one small write per row. */
  #pending = '';
  /** How many rows were written. */
  rows = 0;

  constructor(
    /** Where the rows go. */
    readonly path: string,
    private readonly head: string,
    private readonly encoding: FileEncoding,
  ) {}

  /** Appends one row's text (its line break included); a promise when the caller should wait for the disk. */
  write(text: string): Promise<void> | undefined {
    if (this.#error) throw this.#error;
    if (this.rows++ === 0) this.#pending = this.head;
    this.#pending += text;
    return this.#pending.length >= BATCH_CHARS ? this.#handOver() : undefined;
  }

  /** Flushes and closes the file (nothing to do if no row came); throws what writing it met. */
  async close(): Promise<void> {
    if (this.#pending !== '') await this.#handOver();
    const stream = this.#stream;
    if (stream && !stream.closed) await new Promise<void>((resolve) => stream.end(resolve));
    if (this.#error) throw this.#error;
  }

  /** Hands the pending rows to the file's stream; a promise while the disk is behind. */
  #handOver(): Promise<void> | undefined {
    const stream = this.#stream ?? this.#open();
    const bytes = encodeText(this.#pending, this.encoding);
    this.#pending = '';
    if (stream.write(bytes)) return undefined;
    return new Promise((resolve, reject) => {
      const done = () => {
        stream.off('drain', done);
        stream.off('error', done);
        if (this.#error) reject(this.#error);
        else resolve();
      };
      stream.on('drain', done);
      stream.on('error', done);
    });
  }

  #open(): WriteStream {
    const stream = createWriteStream(this.path);
    stream.on('error', (error) => {
      this.#error = new Error(`cannot write ${this.path}: ${error.message}`, { cause: error });
    });
    this.#stream = stream;
    return stream;
  }
}

const BATCH_CHARS = 64 * 1024;
