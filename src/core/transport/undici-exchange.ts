import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { ValidationError } from '../../errors.js';
import type { Deadline } from './deadline.js';
import {
  BodyTooLargeError,
  MAX_RESPONSE_BYTES,
  NeverSentError,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

/** undici's header record type (its own module for it is not in undici's exports map). */
type IncomingHttpHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>[1];

/** What one exchange needs besides its handler: where it goes and what it carries. */
export type ExchangeRequest = Pick<TransportRequest, 'url' | 'method' | 'headers' | 'body'>;

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * One exchange as an undici dispatch handler: it keeps the status and headers, gathers the body
 * (at most `MAX_RESPONSE_BYTES`) and settles one promise with the whole answer.
 *
 * Why not `undici.request()` and `body.text()`: that path parses the URL again, builds a Node
 * `Readable` for every response, and reads it back through stream events and listeners. The SDK
 * always wants the whole (bounded) body as text, so the handler takes the chunks as undici hands
 * them over; it is also where the deadline and the caller's signal meet undici's controller
 * (no AbortSignal listener inside undici), where uploaded bytes are counted (`onBodySent`), and
 * where a redirect a caller's dispatcher would follow is refused before it is sent.
 */
export class Exchange implements Dispatcher.DispatchHandler {
  readonly #resolve: (response: TransportResponse) => void;
  readonly #reject: (error: unknown) => void;
  readonly #deadline: Deadline;
  readonly #onBodyBytes: ((bytes: number) => void) | undefined;
  /** A HEAD answer declares the length of a body it does not carry. */
  readonly #head: boolean;
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the caller stopped the exchange before undici started it: it ends at its start. */
  #stopped: { reason: unknown } | undefined;
  #settled = false;
  #status = 0;
  #headers: Record<string, string> = {};
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(
    resolve: (response: TransportResponse) => void,
    reject: (error: unknown) => void,
    deadline: Deadline,
    onBodyBytes: ((bytes: number) => void) | undefined,
    method: string,
  ) {
    this.#head = method === 'HEAD';
    this.#resolve = resolve;
    this.#reject = reject;
    this.#deadline = deadline;
    this.#onBodyBytes = onBodyBytes;
  }

  /** The caller gave up (its signal): answered now; undici ends the exchange, now or when it starts. */
  stop(reason: unknown): void {
    this.#stopped = { reason };
    this.#controller?.abort(reason as Error);
    this.#fail(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    // undici's redirect handler starts each hop through this handler with the URLs already
    // visited in `context.history`. The SDK asks for no redirects (maxRedirections: 0); a
    // dispatcher that follows one anyway is stopped here, before the hop's request is written,
    // so X-Api-Key never reaches the Location's origin.
    const history = (context as { history?: readonly unknown[] } | null | undefined)?.history;
    if (history !== undefined && history.length > 0) {
      controller.abort(redirectRefused(history[0]));
      return;
    }
    this.#controller = controller;
    if (this.#stopped) {
      controller.abort(this.#stopped.reason as Error);
      return;
    }
    this.#deadline.attach(controller);
  }

  onRequestUpgrade(_controller: Dispatcher.DispatchController, statusCode: number, _h: unknown, socket: Duplex): void {
    // No call of this API asks to switch protocols: the socket is not ours to keep.
    socket.destroy();
    this.#fail(new Error(`the server switched protocols (HTTP ${statusCode}) on a plain API call`));
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // An informational answer (100 Continue, 103 Early Hints) is not the answer: the final one follows.
    if (statusCode < 200) return;
    this.#status = statusCode;
    const flat: Record<string, string> = {};
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    this.#headers = flat;
    // The declared length is refused before any of it is read; answers that never carry a body
    // (to a HEAD, a 204, a 304) only describe one.
    const bodiless = this.#head || statusCode === 204 || statusCode === 304;
    if (!bodiless && Number(flat['content-length']) > MAX_RESPONSE_BYTES) {
      controller.abort(new BodyTooLargeError(statusCode, flat));
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer | Uint8Array): void {
    // Settled (failed, or given up): a dispatcher that delivers after an abort keeps nothing alive.
    if (this.#settled) return;
    this.#size += chunk.byteLength;
    if (this.#size > MAX_RESPONSE_BYTES) {
      controller.abort(new BodyTooLargeError(this.#status, this.#headers));
      return;
    }
    // undici's own clients hand over Buffers; a caller's dispatcher may hand a plain Uint8Array.
    this.#chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }

  onResponseEnd(): void {
    this.#deadline.clear();
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve({ status: this.#status, headers: this.#headers, text: decodeUtf8(this.#chunks, this.#size) });
    this.#chunks = [];
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#deadline.clear();
    this.#fail(error);
  }

  onBodySent(chunk: Buffer | string): void {
    // Counted as undici writes to the socket, which is what "uploaded" means; counting as the
    // file is read would run ahead of the network by the stream buffers.
    this.#onBodyBytes?.(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length);
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#chunks = [];
    this.#reject(error);
  }
}

/**
 * Hands the exchange to undici: origin and path split from the URL the SDK built (undici's own
 * `request()` would parse it into a URL object on every call), `maxRedirections: 0` so that a
 * caller's redirect interceptor follows nothing.
 */
export function dispatchExchange(dispatcher: Dispatcher, req: ExchangeRequest, exchange: Exchange): void {
  const { origin, path } = splitUrl(req.url);
  const options = {
    origin,
    path,
    method: req.method as Dispatcher.HttpMethod,
    headers: req.headers,
    body: req.body ?? null,
    maxRedirections: 0,
  };
  try {
    dispatcher.dispatch(options, exchange);
  } catch (error) {
    // dispatch() throws only before it has queued the request (undici answers later failures
    // through the handler): nothing was written.
    exchange.onResponseError(undefined as never, new NeverSentError(error));
  }
}

/** Characters a URL path or query keeps as they are: anything else goes through `URL`. */
const PLAIN_PATH = /^\/[\w\-.~!$&'()*+,;=:@/?%]*$/;

/**
 * `origin` and `path` (with the query) of an absolute URL. The SDK builds its URLs from a
 * normalised base and encoded parts, so splitting at the first `/` after the authority gives
 * what `new URL()` would; a path with characters, dot segments or an empty query that `URL`
 * would rewrite takes the `URL` route, so the request line is the same either way (a property
 * test holds the two together).
 */
export function splitUrl(url: string): { origin: string; path: string } {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  if (slash !== -1) {
    const path = url.slice(slash);
    if (PLAIN_PATH.test(path) && !path.includes('/.') && !/%2e/i.test(path) && !path.endsWith('?')) {
      return { origin: url.slice(0, slash), path };
    }
  }
  const parsed = new URL(url);
  return { origin: parsed.origin, path: parsed.pathname + parsed.search };
}

/** The body as text: UTF-8, a leading byte order mark dropped, as `fetch`'s `text()` does. */
function decodeUtf8(chunks: readonly Buffer[], size: number): string {
  if (chunks.length === 0) return '';
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
  const bom = bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2];
  return bytes.toString('utf8', bom ? 3 : 0);
}

function redirectRefused(from: unknown): ValidationError {
  return new ValidationError(
    'The dispatcher option followed a redirect',
    [
      {
        path: 'dispatcher',
        message: `it followed a redirect from ${from instanceof URL ? from.origin : String(from)} although the SDK asked for none (maxRedirections: 0). The SDK stopped it before anything was sent to the new address, so your API key only goes to the base URL's origin. Pass a dispatcher that does not follow redirects.`,
      },
    ],
    { code: 'validation.options', mayHaveBeenSent: true },
  );
}
