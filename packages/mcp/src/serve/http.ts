/**
 * `--http`: MCP over Streamable HTTP at `/mcp`, on loopback only, behind the bearer token. Each
 * client session (`Mcp-Session-Id`) has its own transport and MCP server session; they all share
 * one toolbox, so approvals, `--max-sends` and the allow-list are the process's, whatever the session.
 * Sessions are bounded and reclaimed as sessions.ts says; an unknown one is answered 404.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { shortInput } from 'tenant-messaging-bin-kit';
import { bearerCheck, fromLoopback } from '../access/auth.js';
import type { Log } from '../shell/log.js';
import type { HttpAddress } from '../shell/options.js';
import { TOKEN_ENV } from '../shell/options.js';
import type { Toolbox } from '../tools/toolbox.js';
import { createMcpServer } from './server.js';
import { MAX_SESSIONS, type SessionEntry, SessionTable, type SessionTableOptions } from './sessions.js';

/**
 * The endpoint's path, as MCP clients expect it.
 *
 * @default '/mcp'
 * @example
 * ```ts
 * await fetch(`http://127.0.0.1:8808${MCP_PATH}`, { method: 'POST', headers, body })
 * ```
 */
export const MCP_PATH = '/mcp';

/** The largest request body read: MCP requests are small JSON-RPC messages. */
const MAX_BODY_BYTES = 1_000_000;

/**
 * How long `close` waits for the results of calls that ended to reach their clients.
 *
 * @default 1_000
 * @example
 * ```ts
 * await serving.close() // within FLUSH_MS, plus the sessions' own closing
 * ```
 */
export const FLUSH_MS = 1_000;

/** The most of a refused request's path the log shows: anyone can send one, of any length. */
const REFUSED_PATH_SHOWN = 200;

/** Options of {@link serveHttp} beyond the address, the token and the toolbox. */
export interface HttpOptions extends SessionTableOptions {
  readonly log: Log;
  /** Redacted from a refused request's path before it is shortened for the log. @default [] */
  readonly secrets?: readonly string[] | undefined;
}

/**
 * A running HTTP server.
 *
 * @example
 * ```ts
 * const serving = await serveHttp(address, token, toolbox, { log })
 * serving.stopAccepting(); await serving.close()
 * ```
 */
export interface HttpServing {
  /** Where it listens, e.g. `http://127.0.0.1:8808/mcp`. */
  readonly url: string;
  /** Refuses new sessions from now on (503); the open ones are still served, to finish their calls. */
  stopAccepting(): void;
  /** Waits (at most {@link FLUSH_MS}) for the calls' results to be sent, then closes every session and the socket. */
  close(): Promise<void>;
}

/**
 * Serves `toolbox` over Streamable HTTP on `address` (loopback, checked by options.ts).
 *
 * @example
 * ```ts
 * const serving = await serveHttp({ host: '127.0.0.1', port: 8808 }, token, toolbox, { log })
 * ```
 */
export async function serveHttp(
  address: HttpAddress,
  token: string,
  toolbox: Toolbox,
  options: HttpOptions,
): Promise<HttpServing> {
  const { log } = options;
  const allowed = bearerCheck(token);
  const sessions = new SessionTable<SessionEntry & { readonly transport: StreamableHTTPServerTransport }>({
    ...options,
    onReclaim: (why, open) =>
      log.debug?.(`mcp: session ${why === 'idle' ? 'idle too long' : 'least recently used, to make room'}: closed`, {
        open,
      }),
  });
  let accepting = true;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!allowed(req.headers.authorization)) {
      // Its path only (a query may carry anything), redacted, then cut: the log's own redaction stays cheap.
      const path = shortInput(pathOf(req), REFUSED_PATH_SHOWN, [token, ...(options.secrets ?? [])]);
      log.warn?.(`mcp: refused a request without a valid bearer token (${req.method} ${path})`);
      return reply(res, 401, `Unauthorized: send "Authorization: Bearer" with the token of ${TOKEN_ENV}`, {
        'www-authenticate': 'Bearer realm="tenant-messaging-mcp"',
      });
    }
    if (!fromLoopback(req)) return reply(res, 403, 'Forbidden: only loopback hosts and origins may call this server');
    if (pathOf(req) !== MCP_PATH) {
      return reply(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    }
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req);
      if (!read.ok) return reply(res, read.status, read.message, {}, read.code);
      body = read.value;
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      await sessions.sweep();
      const session = sessions.use(id);
      // Never opened, closed, or reclaimed: the protocol's answer, on which a client initializes again.
      if (!session) return reply(res, 404, 'Session not found: initialize a new one', {}, -32_001);
      sessions.track(session, req.method === 'POST', (done) => res.once('close', done));
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return reply(res, 400, 'Bad request: no Mcp-Session-Id; send an initialize request first');
    }
    if (!accepting) return reply(res, 503, 'The server is stopping: it takes no new session', { 'retry-after': '5' });
    const reservation = await sessions.reserve();
    if ('retryAfterMs' in reservation) {
      const seconds = Math.ceil(reservation.retryAfterMs / 1000);
      return reply(
        res,
        503,
        `Every session (${options.max ?? MAX_SESSIONS}) is in use, still initializing or was used in the last minute: try again in ${seconds} s`,
        { 'retry-after': String(seconds) },
      );
    }
    const { release } = reservation;
    // The slot is held until the session is in the table or its initialize ended without one.
    res.once('close', release);
    const server = createMcpServer(toolbox);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        release();
        sessions.add(sessionId, entry);
        log.debug?.('mcp: session opened', { sessions: sessions.size });
      },
    });
    const entry = Object.assign(
      sessions.entry(() => server.close()),
      { transport },
    );
    // Until its client says it is initialized, the session is never evicted (sessions.ts).
    server.oninitialized = () => {
      entry.initialized = true;
    };
    sessions.track(entry, true, (done) => res.once('close', done));
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.error?.('mcp: an HTTP request failed', { error: String(error) });
      if (!res.headersSent) reply(res, 500, 'Internal error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(address.port, address.host.replace(/^\[|\]$/g, ''), () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${address.host}:${port}${MCP_PATH}`,
    stopAccepting() {
      accepting = false;
    },
    async close() {
      accepting = false;
      const until = Date.now() + FLUSH_MS;
      while (sessions.callsInFlight() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      await sessions.closeAll();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

/** The path of `req`'s URL, without its query. */
function pathOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    return '(not a URL)';
  }
}

/** A JSON-RPC error answer (MCP clients read the message), with `status`. */
function reply(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32_000,
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

type Read = { ok: true; value: unknown } | { ok: false; status: number; message: string; code: number };

/** The request's body as JSON, up to {@link MAX_BODY_BYTES}. */
async function readJson(req: IncomingMessage): Promise<Read> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, message: 'Request body too large', code: -32_600 };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, message: 'Parse error: the body is not JSON', code: -32_700 };
  }
}
