import type { buildConnector, Dispatcher } from 'undici';
import { MessagingError, ValidationError } from '../../errors.js';
import type { ProxyConfig } from '../../internal/requests/proxy.js';
import { ConnectionGates, type GateWaiter } from './connection-gate.js';
import { Deadline } from './deadline.js';
import { FetchTransport } from './fetch-transport.js';
import { type UndiciParts, undiciFor } from './load-undici.js';
import { ProxiedExchangeError, proxyRoute } from './proxy.js';
import {
  BodyTooLargeError,
  DeadlineExceededError,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';
import { dispatchExchange, Exchange } from './undici-exchange.js';
import { reportWrittenLeases } from './write-leases.js';

/** Sockets the client's own Agent keeps per origin; more concurrent calls queue for a free one. */
export const MAX_CONNECTIONS = 16;

/** The Agent (or proxy agent) the transport created, with its per-origin gates and the calls still using it. */
interface OwnPool {
  readonly agent: Dispatcher;
  readonly gates: ConnectionGates;
  inFlight: number;
  /** Set by close(): called when the last call using this pool is over. */
  onIdle: (() => void) | undefined;
}

/**
 * The default transport: undici's `dispatch` on a keep-alive Agent, with one `Exchange` handler
 * per request (undici-exchange.ts). It skips the WHATWG fetch layer (Request/Response/Headers
 * objects and web streams) and `undici.request()`'s response stream, and streams Node `Readable`
 * request bodies without buffering them.
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
  #own: OwnPool | undefined;
  /** The runtime's `fetch`, where its undici has no dispatcher (Bun). */
  #runtimeFetch: FetchTransport | undefined;

  /**
   * @param dispatcher the caller's Dispatcher; when absent the transport creates (and owns) an Agent on first use.
   * @param proxy the checked `proxy` option: the Agent it creates then goes through that proxy.
   */
  constructor(dispatcher: Dispatcher | undefined, proxy?: ProxyConfig) {
    this.#dispatcher = dispatcher;
    this.#proxy = proxy;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const proxied = this.#proxy !== undefined;
    // Loaded once per process: every later call takes it without waiting (no await on the hot path).
    const loaded = undiciFor(proxied);
    const { undici, dispatchable } = loaded instanceof Promise ? await loaded : loaded;
    if (!this.#dispatcher && !dispatchable) return this.#fetchTransport().send(req);
    let own: OwnPool | undefined;
    let dispatcher: Dispatcher;
    if (this.#dispatcher) dispatcher = this.#dispatcher;
    else {
      own = this.#own ??= createPool(undici, this.#proxy);
      dispatcher = own.agent;
    }
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
      return await new Promise<TransportResponse>((resolve, reject) => {
        const exchange = new Exchange(resolve, reject, deadline, req.onBodyBytes, req.method);
        deadline.onExpire(reject);
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        if (signal) {
          // Answers at once, even while the request still waits for a connection; undici ends
          // an exchange it started through its controller (no listener inside undici).
          onAbort = () => exchange.stop(signal.reason);
          signal.addEventListener('abort', onAbort, { once: true });
        }
        if (gate === undefined) dispatchExchange(dispatcher, req, exchange);
        else if (gate.tryAcquire()) {
          holdsSlot = true;
          dispatchExchange(dispatcher, req, exchange);
        } else {
          waiter = gate.enqueue(() => {
            // A slot offered once the caller has its answer (or is about to) is left for the next.
            if (signal?.aborted || deadline.expireIfDue()) return false;
            holdsSlot = true;
            dispatchExchange(dispatcher, req, exchange);
            return true;
          });
        }
      });
    } catch (error) {
      // The request body is not undici's to end when the exchange fails: a stream left open
      // would keep its file (or the caller's source) open.
      if (typeof req.body === 'object' && !req.body.destroyed) req.body.on('error', noop).destroy();
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
      }
      if (own && --own.inFlight === 0) own.onIdle?.();
    }
  }

  /** The transport over the runtime's `fetch`, for a runtime whose undici cannot dispatch. */
  #fetchTransport(): FetchTransport {
    if (this.#proxy) {
      throw new ValidationError(
        'The proxy option cannot be used on this runtime',
        [
          {
            path: 'proxy',
            message:
              "this runtime's undici has no dispatcher (Bun's built-in undici), and the proxy runs through one: pass a `fetch` that goes through your proxy instead, e.g. (url, init) => fetch(url, { ...init, proxy: 'http://proxy:3128' }) on Bun",
          },
        ],
        { code: 'validation.options' },
      );
    }
    this.#runtimeFetch ??= new FetchTransport(globalThis.fetch);
    return this.#runtimeFetch;
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

function createPool(undici: UndiciParts, proxy: ProxyConfig | undefined): OwnPool {
  // keep-alive is undici's default; idle sockets are unref'd, so they never hold the process open.
  // A bounded pool: without `connections`, undici opens a new socket whenever every open one is
  // busy, so a burst of N concurrent calls costs N handshakes (and N sockets on the service).
  // The proxy agents hand these options to the Agent inside them (one pool per target origin).
  const options = { keepAliveTimeout: 4_000, connections: MAX_CONNECTIONS };
  const agent =
    proxy === undefined
      ? new undici.Agent({ ...options, connect: reportingWrites(undici.buildConnector({})) })
      : proxyAgent(undici, proxy, options);
  return {
    agent,
    gates: new ConnectionGates(MAX_CONNECTIONS),
    inFlight: 0,
    onIdle: undefined,
  };
}

/** The proxy agent for `proxy`: loadUndici loads the whole module, proxy agents included, whenever a proxy is configured. */
function proxyAgent(
  { ProxyAgent, EnvHttpProxyAgent }: UndiciParts,
  proxy: ProxyConfig,
  options: { keepAliveTimeout: number; connections: number },
): Dispatcher {
  if (ProxyAgent === undefined || EnvHttpProxyAgent === undefined)
    throw new Error('tenant-messaging: undici was loaded without its proxy agents (a bug: please report it)');
  if (proxy.kind === 'url') return new ProxyAgent({ ...options, uri: proxy.uri });
  // The variables as read at construction; '' stands for "unset" (undici then goes direct).
  return new EnvHttpProxyAgent({
    ...options,
    httpProxy: proxy.httpProxy,
    httpsProxy: proxy.httpsProxy,
    noProxy: proxy.noProxy,
  });
}

/**
 * undici's own connector (the same defaults the Agent would use), whose sockets report when a
 * lent upload buffer is written, so the upload reuses it (write-leases.ts).
 */
function reportingWrites(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...result) => {
      if (result[0] === null) reportWrittenLeases(result[1]);
      callback(...result);
    });
}

function noop(): void {}
