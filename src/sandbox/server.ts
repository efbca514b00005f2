import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { dropped } from './fault-responses.js';
import { errorResponse } from './laravel.js';
import type { DefaultTenantSlug, SandboxOptions } from './options.js';
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
  /** Closes the server and destroys every open socket at once: no handle is left open. */
  close(): Promise<void>;
}

/**
 * The real clock, taken when this module loads: a sandbox on loopback keeps real time even in a
 * process whose test runner fakes `Date` later. Its clients' requests travel over sockets, which
 * fake timers do not run: a fake clock would stand still while a request is on its way.
 */
const realNow = Date.now;

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
  const sandbox = createSandbox({ now: realNow, ...sandboxOptions, origin: url });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    serve(req, res).catch((error: unknown) => {
      onError(error);
      res.destroy();
    });
  });

  let closing: Promise<void> | undefined;
  return Object.assign(sandbox, {
    url,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive sockets and ones still answering (a stalled fault) alike.
        server.closeAllConnections();
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
