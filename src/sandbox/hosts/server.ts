import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { ValidationError } from '../../errors.js';
import { dropped } from '../faults/fault-responses.js';
import { errorResponse } from '../http/laravel.js';
import type { DefaultTenantSlug, SandboxOptions } from '../state/options.js';
import { createSandbox, type Sandbox } from './sandbox.js';

/** Options of `startSandbox`: the sandbox's own, plus where to listen. */
export interface StartSandboxOptions<Slug extends string = string> extends SandboxOptions<Slug> {
  /**
   * The port on 127.0.0.1; 0 picks a free one.
   * @default 0
   */
  port?: number;
  /**
   * Called with an error the sandbox threw (a bug, or a MessageLog that drifted from the SDK's
   * schema); the client gets a 500.
   * @default console.error
   */
  onError?: (error: unknown) => void;
}

/** A sandbox behind a real HTTP server on loopback. */
export interface RunningSandbox<Slug extends string = string> extends Sandbox<Slug> {
  /** The server's URL, e.g. `http://127.0.0.1:54321`. */
  readonly url: string;
  /**
   * Closes the server: new connections are refused at once, and every open socket is destroyed,
   * at once or, with `drainMs`, once the requests in flight have been answered (those still open
   * after `drainMs` are cut then). No handle is left open.
   *
   * @example
   * ```ts
   * process.once('SIGTERM', () => sandbox.close({ drainMs: 10_000 }))
   * ```
   */
  close(options?: SandboxCloseOptions): Promise<void>;
}

/** Options of `RunningSandbox.close()`. */
export interface SandboxCloseOptions {
  /**
   * How long the requests in flight may take to be answered before their sockets are cut (ms).
   * @default 0: every socket at once
   */
  readonly drainMs?: number;
}

/**
 * The real clock, taken when this module loads: a sandbox on loopback keeps real time even in a
 * process whose test runner fakes `Date` later. Its clients' requests travel over sockets, which
 * fake timers do not run: a fake clock would stand still while a request is on its way.
 */
const realNow = Date.now;

/** The longest drain a timer can wait (a longer delay fires at once). */
const MAX_DRAIN_MS = 2_147_483_647;

/**
 * Starts the sandbox on 127.0.0.1. It keeps real time (unless given `now`): use `createSandbox()`
 * with `sandbox.fetch` to test under fake timers. Each tenant's base URL is a path prefix of the one server.
 *
 * @example
 * ```ts
 * const sandbox = await startSandbox()
 * const { baseUrl, keys } = sandbox.tenants.acme
 * const client = new MessagingClient({ baseUrl, apiKey: keys.full })
 * await client.me()
 * await sandbox.close()
 * ```
 */
export async function startSandbox<const Slug extends string = DefaultTenantSlug>(
  options: StartSandboxOptions<Slug> = {},
): Promise<RunningSandbox<Slug>> {
  const { port = 0, onError = console.error, ...sandboxOptions } = options;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;
  const sandbox = createSandbox({ now: realNow, ...sandboxOptions, origin: url });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // Closing with a drain: a socket whose answer is written is idle, and closed at once (not
    // kept alive for the client's next request, which would be refused).
    res.once('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
    serve(req, res).catch((error: unknown) => {
      onError(error);
      res.destroy();
    });
  });

  return Object.assign(sandbox, {
    url,
    close(closeOptions?: SandboxCloseOptions): Promise<void> {
      const drainMs = closeOptions?.drainMs ?? 0;
      if (typeof drainMs !== 'number' || !Number.isInteger(drainMs) || drainMs < 0 || drainMs > MAX_DRAIN_MS) {
        const issue = { path: 'drainMs', message: `must be a whole number of ms from 0 to ${MAX_DRAIN_MS}` };
        return Promise.reject(new ValidationError('Invalid sandbox.close() options', [issue]));
      }
      closing ??= new Promise<void>((resolve) => {
        let cut: ReturnType<typeof setTimeout> | undefined;
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
        // Idle keep-alive sockets and ones still answering (a stalled fault) alike; with a drain,
        // each socket ends once its answer is written (a closing server keeps none alive).
        if (drainMs <= 0) server.closeAllConnections();
        else cut = setTimeout(() => server.closeAllConnections(), drainMs);
      });
      return closing;
    },
  });

  /** IncomingMessage -> Request, the handler, Response -> ServerResponse. */
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const abandoned = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abandoned.abort();
    });
    const method = req.method ?? 'GET';
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
    }
    const hasBody = method !== 'GET' && method !== 'HEAD';
    // The body is streamed into the Request, not buffered here: the handler reads only what it needs.
    const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: abandoned.signal };
    if (hasBody) {
      init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      init.duplex = 'half';
    }
    const request = toRequest(new URL('/', url), req.url ?? '/', init);
    let response: Response;
    try {
      response = request instanceof Request ? await sandbox.handle(request) : request;
    } catch (error) {
      onError(error);
      response = errorResponse(500, 'Server Error');
    }
    if (dropped(response)) {
      req.socket.destroy();
      return;
    }
    const outHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      outHeaders[name] = value;
    });
    res.writeHead(response.status, outHeaders);
    if (response.body && method !== 'HEAD') {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  }
}

/** Methods node:http accepts that fetch's Request refuses: the web server in front of the API answers them. */
const FORBIDDEN_METHODS = /^(CONNECT|TRACE|TRACK)$/i;

/**
 * The Request for what node:http received, or the answer of the web server in front of the
 * service when there can be none: a 405 for a method fetch forbids (TRACE), a 400 for a target
 * that is no URL. The client's mistake, so nothing is reported to `onError`.
 */
function toRequest(base: URL, target: string, init: RequestInit & { duplex?: 'half' }): Request | Response {
  const method = init.method ?? 'GET';
  if (FORBIDDEN_METHODS.test(method)) return errorResponse(405, `The ${method} method is not supported.`);
  try {
    return new Request(new URL(target, base), init);
  } catch {
    return errorResponse(400, 'Bad Request.');
  }
}
