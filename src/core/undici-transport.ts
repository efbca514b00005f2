import type { DecoratorHandler, Dispatcher } from 'undici';
import { APIConnectionError, MessagingError } from '../errors.js';
import type { ProxyConfig } from '../internal/proxy.js';
import { ConnectionGates, type GateWaiter } from './connection-gate.js';
import { DEADLINE, Deadline, deadlineInterceptor } from './deadline.js';
import { ProxiedExchangeError, proxyRoute } from './proxy.js';
import {
  BodyTooLargeError,
  DeadlineExceededError,
  MAX_RESPONSE_BYTES,
  readBodyText,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

/**
 * undici, loaded on the first request: importing it is a large part of a cold start (README,
 * Performance), which a process that only constructs a client (or uses the `fetch` option)
 * should not pay.
 */
let undici: typeof import('undici') | undefined;

/** undici itself, or a connection error that says nothing left (the HTTP client could not even load). */
async function loadUndici(): Promise<typeof import('undici')> {
  try {
    return await import('undici');
  } catch (error) {
    throw new APIConnectionError(
      `Could not load undici, the HTTP client (${error instanceof Error ? error.message : 'unknown error'}): check that it is installed and that this Node version is supported (>= 22.19)`,
      { cause: error, neverSent: true },
    );
  }
}

/** Sockets the client's own Agent keeps per origin; more concurrent calls queue for a free one. */
export const MAX_CONNECTIONS = 16;

/** The Agent (or proxy agent) the transport created, with its per-origin gates and the calls still using it. */
interface OwnPool {
  readonly agent: Dispatcher;
  readonly dispatcher: Dispatcher;
  readonly gates: ConnectionGates;
  inFlight: number;
  /** Set by close(): called when the last call using this pool is over. */
  onIdle: (() => void) | undefined;
}

/**
 * The default transport: `undici.request` on a keep-alive Agent. It skips the WHATWG fetch layer
 * (Request/Response/Headers objects and web streams) and streams Node `Readable` bodies without
 * buffering them.
 *
 * With its own Agent, calls beyond `MAX_CONNECTIONS` per origin wait in a `ConnectionGate` rather
 * than in undici's queue, so a call that times out (or is aborted) while waiting is never started.
 * A caller's `dispatcher` is used as given: its own queueing applies (an undici Pool or Agent
 * starts a queued request even after its caller gave up, then aborts it, closing a socket), so
 * size its `connections` for the concurrency you use, or leave it unlimited.
 *
 * With a `proxy`, the pool the transport owns is undici's `ProxyAgent` (or `EnvHttpProxyAgent`)
 * built with the same options, so the gate, keep-alive, deadlines and close() are unchanged.
 */
export class UndiciTransport implements Transport {
  readonly #dispatcher: Dispatcher | undefined;
  readonly #proxy: ProxyConfig | undefined;
  #withDeadlines: Dispatcher | undefined;
  #own: OwnPool | undefined;

  /**
   * @param dispatcher the caller's Dispatcher; when absent the transport creates (and owns) an Agent on first use.
   * @param proxy the checked `proxy` option: the Agent it creates then goes through that proxy.
   */
  constructor(dispatcher: Dispatcher | undefined, proxy?: ProxyConfig) {
    this.#dispatcher = dispatcher;
    this.#proxy = proxy;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    undici ??= await loadUndici();
    const { request } = undici;
    let own: OwnPool | undefined;
    let dispatcher: Dispatcher;
    if (this.#dispatcher) dispatcher = this.#withDeadlines ??= this.#dispatcher.compose(deadlineInterceptor);
    else {
      own = this.#own ??= createPool(undici, this.#proxy);
      dispatcher = own.dispatcher;
    }
    if (req.onBodyBytes) dispatcher = dispatcher.compose(countBodyBytes(undici.DecoratorHandler, req.onBodyBytes));
    // The deadline bounds the whole exchange (queue, connection, headers, body); undici's own
    // headers/body timeouts (300 s) would only ever fire later, so they are left alone.
    const deadline = new Deadline(req.timeout);
    const { signal } = req;
    const gate = own?.gates.for(req.url);
    let holdsSlot = false;
    let waiter: GateWaiter | undefined;
    let onAbort: (() => void) | undefined;
    if (own) own.inFlight++;
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
        // maxRedirections 0 turns off undici's redirect interceptor in a caller's dispatcher:
        // following a redirect would carry X-Api-Key to whatever origin the Location names.
        const options = {
          method: req.method,
          headers: req.headers,
          body: req.body ?? null,
          dispatcher,
          maxRedirections: 0,
          [DEADLINE]: deadline,
          ...(signal ? { signal } : {}),
        };
        if (gate === undefined) request(req.url, options).then(resolve, reject);
        else if (gate.tryAcquire()) {
          holdsSlot = true;
          request(req.url, options).then(resolve, reject);
        } else {
          waiter = gate.enqueue(() => {
            // A slot offered once the caller has its answer (or is about to) is left for the next.
            if (signal?.aborted || deadline.expireIfDue()) return false;
            holdsSlot = true;
            request(req.url, options).then(resolve, reject);
            return true;
          });
        }
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
      // A call that timed out while waiting at the gate was never handed to undici: not one byte left.
      if (deadline.expired) throw new DeadlineExceededError(req.timeout, gate !== undefined && !holdsSlot);
      const route = own && this.#proxy && !signal?.aborted && proxyRoute(this.#proxy, req.url);
      // The SDK's own errors (a failing media source, an oversized body) are not the proxy's doing.
      if (route && !(error instanceof MessagingError || error instanceof BodyTooLargeError)) {
        throw new ProxiedExchangeError(error, route);
      }
      throw error;
    } finally {
      deadline.clear();
      // A caller's signal may be shared by many calls: leave no listener behind on it.
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      if (gate) {
        if (waiter) gate.leave(waiter);
        if (holdsSlot) gate.release();
        // undici destroys a body it was handed when the exchange fails; one it never got is destroyed here.
        else if (typeof req.body === 'object') req.body.destroy();
      }
      if (own && --own.inFlight === 0) own.onIdle?.();
    }
  }

  async close(): Promise<void> {
    const own = this.#own;
    this.#own = undefined;
    if (!own) return;
    // Calls already made finish on this Agent (waiters included, as in undici's own close());
    // a call made from now on opens a new one.
    if (own.inFlight > 0) await new Promise<void>((resolve) => (own.onIdle = resolve));
    // Only an Agent we created is ours to close; a caller's dispatcher may be shared.
    await own.agent.close();
  }
}

function createPool(
  { Agent, ProxyAgent, EnvHttpProxyAgent }: typeof import('undici'),
  proxy: ProxyConfig | undefined,
): OwnPool {
  // keep-alive is undici's default; idle sockets are unref'd, so they never hold the process open.
  // A bounded pool: without `connections`, undici opens a new socket whenever every open one is
  // busy, so a burst of N concurrent calls costs N handshakes (and N sockets on the service).
  // The proxy agents hand these options to the Agent inside them (one pool per target origin).
  const options = { keepAliveTimeout: 4_000, connections: MAX_CONNECTIONS };
  const agent =
    proxy === undefined
      ? new Agent(options)
      : proxy.kind === 'url'
        ? new ProxyAgent({ ...options, uri: proxy.uri })
        : // The variables as read at construction; '' stands for "unset" (undici then goes direct).
          new EnvHttpProxyAgent({
            ...options,
            httpProxy: proxy.httpProxy,
            httpsProxy: proxy.httpsProxy,
            noProxy: proxy.noProxy,
          });
  return {
    agent,
    dispatcher: agent.compose(deadlineInterceptor),
    gates: new ConnectionGates(MAX_CONNECTIONS),
    inFlight: 0,
    onIdle: undefined,
  };
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
