import type { Agent, DecoratorHandler, Dispatcher } from 'undici';
import { DEADLINE, Deadline, deadlineInterceptor } from './deadline.js';
import {
  DeadlineExceededError,
  MAX_RESPONSE_BYTES,
  readBodyText,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

/**
 * undici, loaded on the first request: importing it costs about 65 ms, which a cold start that
 * only constructs a client (or one that uses the `fetch` option) should not pay.
 */
let undici: typeof import('undici') | undefined;

/** Sockets the client's own Agent keeps per origin; more concurrent calls queue for a free one. */
export const MAX_CONNECTIONS = 16;

/**
 * The default transport: `undici.request` on a keep-alive Agent. It skips the WHATWG fetch layer
 * (Request/Response/Headers objects and web streams), which measured about 2.3x fetch's
 * throughput on loopback, and it streams Node `Readable` bodies without buffering them.
 */
export class UndiciTransport implements Transport {
  readonly #dispatcher: Dispatcher | undefined;
  #ownAgent: Agent | undefined;
  #withDeadlines: Dispatcher | undefined;

  /** @param dispatcher the caller's Dispatcher; when absent the transport creates (and owns) an Agent on first use. */
  constructor(dispatcher: Dispatcher | undefined) {
    this.#dispatcher = dispatcher;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    undici ??= await import('undici');
    const { request } = undici;
    let dispatcher = this.#dispatcherWithDeadlines(undici);
    if (req.onBodyBytes) dispatcher = dispatcher.compose(countBodyBytes(undici.DecoratorHandler, req.onBodyBytes));
    // The deadline bounds the whole exchange (queue, connection, headers, body); undici's own
    // headers/body timeouts (300 s) would only ever fire later, so they are left alone.
    const deadline = new Deadline(req.timeout);
    const { signal } = req;
    let onAbort: (() => void) | undefined;
    try {
      const response = await new Promise<Dispatcher.ResponseData>((resolve, reject) => {
        deadline.onExpire(reject);
        if (signal) {
          // The caller's signal goes to undici too (it ends a started exchange); this listener
          // answers at once even while the request still waits for a connection.
          onAbort = () => reject(signal.reason);
          signal.addEventListener('abort', onAbort, { once: true });
        }
        // The deadline rides in the dispatch options (undici passes them to interceptors as given).
        const options = {
          method: req.method,
          headers: req.headers,
          body: req.body ?? null,
          dispatcher,
          [DEADLINE]: deadline,
          ...(signal ? { signal } : {}),
        };
        request(req.url, options).then(resolve, reject);
      });
      const headers = flattenHeaders(response.headers);
      const { body } = response;
      // A declared length within bounds takes undici's own text() (no per-chunk async iteration,
      // measurably cheaper per request); chunked or oversized bodies go through the bounded reader.
      const text =
        Number(headers['content-length']) <= MAX_RESPONSE_BYTES
          ? await body.text()
          : await readBodyText(body, response.statusCode, headers, () => body.destroy());
      return { status: response.statusCode, headers, text };
    } catch (error) {
      throw deadline.expired ? new DeadlineExceededError(req.timeout) : error;
    } finally {
      deadline.clear();
      // A caller's signal may be shared by many calls: leave no listener behind on it.
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The dispatcher with the deadline interceptor, composed once per transport. */
  #dispatcherWithDeadlines(lib: typeof import('undici')): Dispatcher {
    this.#withDeadlines ??= (this.#dispatcher ?? this.#agent(lib.Agent)).compose(deadlineInterceptor);
    return this.#withDeadlines;
  }

  async close(): Promise<void> {
    const agent = this.#ownAgent;
    this.#ownAgent = undefined;
    this.#withDeadlines = undefined;
    // Only an Agent we created is ours to close; a caller's dispatcher may be shared.
    await agent?.close();
  }

  #agent(AgentClass: typeof Agent): Agent {
    // keep-alive is undici's default; idle sockets are unref'd, so they never hold the process open.
    // A bounded pool: without `connections`, undici opens a new socket whenever every open one is
    // busy, so a burst of N concurrent calls costs N handshakes (and N sockets on the service).
    this.#ownAgent ??= new AgentClass({ keepAliveTimeout: 4_000, connections: MAX_CONNECTIONS });
    return this.#ownAgent;
  }
}

/**
 * An interceptor that reports request body bytes as undici writes them to the socket
 * (`onBodySent`), which is what "uploaded" means; counting as the file is read would run ahead
 * of the network by the stream buffers.
 */
function countBodyBytes(
  Decorator: typeof DecoratorHandler,
  onBytes: (bytes: number) => void,
): Dispatcher.DispatcherComposeInterceptor {
  // DecoratorHandler forwards onBodySent at run time, but its typings omit it.
  const forward = (Decorator.prototype as { onBodySent?: (chunk: Buffer) => void }).onBodySent;
  class CountingHandler extends Decorator {
    onBodySent(chunk: Buffer): void {
      onBytes(chunk.length);
      forward?.call(this, chunk);
    }
  }
  return (dispatch) => (options, handler) => dispatch(options, new CountingHandler(handler));
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
