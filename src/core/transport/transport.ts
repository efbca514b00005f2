import type { Readable } from 'node:stream';
import type { HttpMethod } from '../../types/request.js';

/** One HTTP exchange as the SDK's request executor hands it to a transport. */
export interface TransportRequest {
  readonly method: HttpMethod;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON text, or a multipart body streamed from a Node `Readable`. */
  readonly body?: string | Readable | undefined;
  /** The caller's signal, if any: aborting it ends the exchange at once with its reason. */
  readonly signal?: AbortSignal | undefined;
  /**
   * The exchange's deadline in ms, connection, headers and body together. When it passes, the
   * transport ends the exchange and rejects with `DeadlineExceededError`.
   */
  readonly timeout: number;
  /** Called as request body bytes are handed to the socket. */
  readonly onBodyBytes?: ((bytes: number) => void) | undefined;
}

/** A complete response: the SDK always needs the whole (small, JSON) body, so transports read it. */
export interface TransportResponse {
  readonly status: number;
  /** Lower-case header names; repeated headers joined with `, `. */
  readonly headers: Record<string, string>;
  readonly text: string;
}

/**
 * The small interface both transports implement. Keeping it this narrow is what lets msw, an
 * in-process fake or another runtime's fetch replace undici without touching retry or error code.
 */
export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

/** Thrown by a transport when an exchange outlived its `timeout`. */
export class DeadlineExceededError extends Error {
  /** True when the request was never handed to the HTTP client: it certainly did not leave. */
  readonly neverSent: boolean;

  constructor(timeout: number, neverSent = false) {
    super(`the exchange did not complete within ${timeout} ms`);
    this.neverSent = neverSent;
  }
}

/**
 * Thrown by a transport when its HTTP client failed before it took the request (it threw when
 * called, or a method it needs is missing): not one byte left, whatever the runtime, so even a
 * send is safe to retry. `cause` is what the HTTP client threw.
 */
export class NeverSentError extends Error {
  constructor(cause: unknown) {
    super('the HTTP client failed before it took the request', { cause });
  }
}

/**
 * The largest response body the SDK reads. API answers are small JSON documents; a body beyond
 * this is a misbehaving server or proxy, and reading it whole would take the process's memory.
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Thrown by a transport when a response body is larger than `MAX_RESPONSE_BYTES`. */
export class BodyTooLargeError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, headers: Record<string, string>) {
    super(`the response body is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB`);
    this.status = status;
    this.headers = headers;
  }
}

/**
 * Reads a body as UTF-8 text, refusing one that declares, or turns out to have, more than
 * `MAX_RESPONSE_BYTES`. `discard` releases the connection when the body is refused.
 */
export async function readBodyText(
  chunks: AsyncIterable<Uint8Array>,
  status: number,
  headers: Record<string, string>,
  discard: () => void,
): Promise<string> {
  if (Number(headers['content-length']) > MAX_RESPONSE_BYTES) {
    discard();
    throw new BodyTooLargeError(status, headers);
  }
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      discard();
      throw new BodyTooLargeError(status, headers);
    }
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}
