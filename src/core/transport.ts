import type { Readable } from 'node:stream';

/** One HTTP exchange as the SDK's request executor hands it to a transport. */
export interface TransportRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON text, or a multipart body streamed from a Node `Readable`. */
  readonly body?: string | Readable | undefined;
  /** Aborts the exchange: the caller's signal and the per-attempt deadline, combined. */
  readonly signal: AbortSignal;
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
