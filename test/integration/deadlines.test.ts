import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APIConnectionError,
  APITimeoutError,
  MessagingClient,
  mediaFromPath,
  SendOutcomeUnknownError,
} from 'tenant-messaging';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { json, messageLog, parseMultipart, startServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

let server: TestServer | undefined;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tm-deadline-'));
  await writeFile(join(dir, 'photo.png'), Buffer.alloc(64 * 1024, 3));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => server?.close());

const text = { sender_phone: '+1', to_phone: '+2', type: 'text', content: 'hi' } as const;

describe('one deadline per attempt covers headers and body', () => {
  it('a server that stalls mid-body times out after `timeout`', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"data":{"id":1,');
    });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
    // The body never ends: nothing but the 150 ms deadline ends the call before the test's timeout
    // (undici's own body timeout is minutes), so no nearer bound.
    await expect(client.me({ timeout: 150 })).rejects.toBeInstanceOf(APITimeoutError);
  });

  it('a read that times out is retried; a send that times out is SendOutcomeUnknownError, sent once', async () => {
    server = await startServer((_req, res, index) => {
      if (index === 0) return; // never answers the first request
      json(res, 200, { data: messageLog() });
    });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k', timeout: 100 });
    await expect(client.messages.get(42)).resolves.toMatchObject({ id: 42 });
    expect(server.requests).toHaveLength(2);

    await server.close();
    server = await startServer(() => undefined);
    const slow = new MessagingClient({ baseUrl: server.url, apiKey: 'k', timeout: 100 });
    const error = await slow.messages.send(text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    expect((error as Error).cause).toBeInstanceOf(APITimeoutError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('the deadline covers the wait for a free connection', () => {
  it('a call queued behind a full pool still times out on time, and the pool recovers', async () => {
    const stalled: (() => void)[] = [];
    server = await startServer((_req, res, index) => {
      if (index < 16) stalled.push(() => json(res, 200, { data: {} }));
      else json(res, 200, { data: {} });
    });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
    // 16 calls take every socket of the client's pool and hang.
    const holders = Array.from({ length: 16 }, () => client.me({ timeout: 5_000 }));
    await until(
      () => stalled.length === 16,
      () => `${stalled.length} of 16 calls hold a socket`,
    );
    // On time: a deadline that did not cover the wait would see the call sent once the holders'
    // 5 s deadlines freed a socket, and answered (the server answers every later request).
    await expect(client.me({ timeout: 150 })).rejects.toBeInstanceOf(APITimeoutError);
    expect(server.requests).toHaveLength(16);
    for (const answer of stalled) answer();
    await Promise.all(holders);
    await expect(client.me({ timeout: 1_000 })).resolves.toEqual({});
  });
});

describe('connection resets', () => {
  it('a reset after the request was read: reads retry, sends raise SendOutcomeUnknownError once', async () => {
    server = await startServer((_req, res, index) => {
      if (index === 0 || index === 2) res.socket?.destroy();
      else json(res, 200, { data: messageLog() });
    });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    await expect(client.messages.get(42)).resolves.toMatchObject({ id: 42 });
    const error = await client.messages.send(text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    expect((error as Error).cause).toBeInstanceOf(APIConnectionError);
    expect(server.requests).toHaveLength(3);
  });

  it('a reset on connect is not known to be unsent, so a send is not retried (never twice)', async () => {
    let connections = 0;
    const raw = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const port = (raw.address() as { port: number }).port;
    try {
      const client = new MessagingClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k' });
      await expect(client.messages.send(text)).rejects.toBeInstanceOf(SendOutcomeUnknownError);
      expect(connections).toBe(1);
      await expect(client.me({ maxRetries: 2 })).rejects.toBeInstanceOf(APIConnectionError);
      expect(connections).toBe(4);
    } finally {
      await new Promise((resolve) => raw.close(resolve));
    }
  });
});

describe('retried media bodies', () => {
  it('a file from mediaFromPath is re-opened for a retry and sent whole both times', async () => {
    server = await startServer((_req, res, index) =>
      index === 0
        ? json(res, 429, { message: 'slow down' }, { 'retry-after': '0' })
        : json(res, 201, { data: messageLog() }),
    );
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    await client.messages.send({ ...text, type: 'image', media: mediaFromPath(join(dir, 'photo.png')) });
    expect(server.requests).toHaveLength(2);
    for (const req of server.requests) {
      const file = (await parseMultipart(req)).get('media') as File;
      expect(file.size).toBe(64 * 1024);
    }
  });
});
