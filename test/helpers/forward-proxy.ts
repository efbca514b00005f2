import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

/** What passed through the proxy: an absolute-form request it forwarded, or a CONNECT it tunnelled. */
export interface ProxiedRequest {
  method: string;
  /** `http://host:port/path` for a forwarded request, `host:port` for a CONNECT. */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface ForwardProxy {
  url: string;
  port: number;
  requests: ProxiedRequest[];
  /** Connections the client opened to the proxy, and how many are still open. */
  readonly connections: number;
  readonly open: number;
  /** Every byte the client sent into CONNECT tunnels (what the proxy could read of them). */
  readonly tunnelled: Buffer;
  close(): Promise<void>;
}

/**
 * A minimal HTTP forward proxy on 127.0.0.1: absolute-form requests are forwarded, CONNECT opens a
 * TCP tunnel. It records what it saw. With `requireAuth`, anything without exactly that
 * `Proxy-Authorization` gets 407.
 */
export async function startForwardProxy(requireAuth?: string): Promise<ForwardProxy> {
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const state = { connections: 0, tunnelled: [] as Buffer[] };
  const authorized = (headers: IncomingHttpHeaders) =>
    requireAuth === undefined || headers['proxy-authorization'] === requireAuth;

  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    if (!authorized(req.headers)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    requests.push({ method: 'CONNECT', url: req.url ?? '', headers: req.headers });
    client.on('error', () => undefined);
    if (!authorized(req.headers)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      client.on('data', (chunk: Buffer) => state.tunnelled.push(chunk));
      client.pipe(upstream).pipe(client);
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  server.on('connection', (socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get connections() {
      return state.connections;
    },
    get open() {
      return sockets.size;
    },
    get tunnelled() {
      return Buffer.concat(state.tunnelled);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
