import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REFUSED_PORTS, reservedPort } from './components.ts';
import { messageLog } from './message-log.js';

/** A request as the test server received it. */
export interface CapturedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Handler = (req: CapturedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: CapturedRequest[];
  sockets: number;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Reads each body slowly: a pause of `pauseMs` after every `everyBytes` bytes, so the client's socket fills. */
  readPace?: { everyBytes: number; pauseMs: number };
  /** Serves https with this key and certificate (PEM). */
  tls?: { key: Buffer; cert: Buffer };
}

/**
 * A real HTTP server on 127.0.0.1 and a free port that records every request and answers with
 * the test's handler (ky's and stripe's test style): tests assert on what really crossed the wire.
 */
export async function startServer(handler: Handler, options: ServerOptions = {}): Promise<TestServer> {
  const requests: CapturedRequest[] = [];
  const open = new Set<Socket>();
  const state = { sockets: 0 };
  const { readPace, tls } = options;
  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let sincePause = 0;
    try {
      for await (const chunk of req) {
        chunks.push(chunk as Buffer);
        sincePause += (chunk as Buffer).length;
        if (readPace && sincePause >= readPace.everyBytes) {
          sincePause = 0;
          await new Promise((resolve) => setTimeout(resolve, readPace.pauseMs));
        }
      }
    } catch {
      return; // The client cut the upload off: nothing arrived whole, so nothing is recorded.
    }
    const captured = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    requests.push(captured);
    try {
      await handler(captured, res, requests.length - 1);
    } catch (error) {
      res.statusCode = 599;
      res.end(String(error));
    }
  };
  const server = tls ? createTlsServer(tls, onRequest) : createServer(onRequest);
  server.on('connection', (socket) => {
    state.sockets++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    get sockets() {
      return state.sockets;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The URL of a loopback port nothing listens on: connections to it are refused. */
export async function refusedUrl(): Promise<string> {
  // Below the ephemeral range: a closed ephemeral port is soon given to another test's server.
  return `http://127.0.0.1:${await reservedPort(...REFUSED_PORTS)}`;
}

/** Answers with a JSON body. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export { messageLog };

/** A document send's fields, without its media (the upload tests add `media`). */
export const documentSend = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'document' } as const;

/** What the service answers to a document send: its stored log. */
export const documentStored = { data: messageLog({ message_type: 'document' }) };

/** A server that records every upload and answers `documentStored` (with `startServer`'s options). */
export function startUploadServer(options: ServerOptions = {}): Promise<TestServer> {
  return startServer((_req, res) => json(res, 201, documentStored), options);
}

/** Parses a multipart body the way a server would, with the platform's own FormData parser. */
export async function parseMultipart(req: CapturedRequest): Promise<FormData> {
  return new Request('http://parse.invalid/', {
    method: 'POST',
    headers: { 'content-type': String(req.headers['content-type']) },
    body: new Uint8Array(req.body),
  }).formData();
}

/** The bytes of a multipart request's `media` part. */
export async function mediaOf(req: CapturedRequest): Promise<Buffer> {
  const form = await parseMultipart(req);
  return Buffer.from(await (form.get('media') as File).arrayBuffer());
}

/** A temporary directory holding the given files; `remove()` deletes it. */
export async function tempFiles(files: Record<string, Uint8Array>): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'tm-test-'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
