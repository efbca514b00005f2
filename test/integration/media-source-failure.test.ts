import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import {
  type FetchLike,
  MessagingClient,
  type NamedMedia,
  type SendMessageParams,
  SendOutcomeUnknownError,
  ValidationError,
} from 'tenant-messaging';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, messageLog, startServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** Anything that would have ended the process: the SDK must leave none. */
const escaped: unknown[] = [];
const record = (error: unknown) => escaped.push(error);

let server: TestServer;
let dir: string;
/** Answers held text sends once released: while one is held, the one-connection pool is busy. */
let release: () => void = () => undefined;
let held: Promise<void> = Promise.resolve();
const agents: Agent[] = [];
/** Each transport's one-connection agent. */
const agentOf: Record<'undici' | 'fetch', Agent> = {} as never;
const clients: Record<'undici' | 'fetch', MessagingClient> = {} as never;

beforeAll(async () => {
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  server = await startServer(async (req, res) => {
    if (String(req.headers['content-type']).startsWith('application/json')) await held;
    json(res, 201, { data: messageLog() });
  });
  dir = await mkdtemp(join(tmpdir(), 'tm-media-fail-'));
  // One connection each, so a second request waits in the pool while the first is held.
  const [viaUndici, viaFetch] = [new Agent({ connections: 1 }), new Agent({ connections: 1 })];
  agents.push(viaUndici, viaFetch);
  agentOf.undici = viaUndici;
  agentOf.fetch = viaFetch;
  const fetch: FetchLike = (url, init) =>
    undiciFetch(String(url), { ...init, dispatcher: viaFetch } as never) as unknown as Promise<Response>;
  const base = { baseUrl: server.url, apiKey: 'k', timeout: 5_000 };
  clients.undici = new MessagingClient({ ...base, dispatcher: viaUndici });
  clients.fetch = new MessagingClient({ ...base, fetch });
});
beforeEach(() => {
  server.requests.length = 0;
});
afterEach(() => {
  expect(escaped).toEqual([]);
});
afterAll(async () => {
  process.off('uncaughtException', record);
  process.off('unhandledRejection', record);
  await Promise.all(agents.map((agent) => agent.close()));
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const params = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'document' } as const;

async function sendFailing(transport: 'undici' | 'fetch', media: unknown): Promise<ValidationError> {
  const sent = clients[transport].messages.send({ ...params, media } as SendMessageParams);
  const error = await sent.catch((e: unknown) => e);
  expect(error).not.toBeInstanceOf(SendOutcomeUnknownError);
  expect(error).toBeInstanceOf(ValidationError);
  const { issues, message } = error as ValidationError;
  expect(issues[0]?.path).toBe('media');
  expect(message).toMatch(/media source failed/);
  return error as ValidationError;
}

describe('a media source that fails gives a ValidationError on send, and the process lives on', () => {
  // First in the file: the schemas are not loaded yet, so send awaits before it reads the media.
  it.each(['undici', 'fetch'] as const)('fs.createReadStream of a missing file, over %s', async (transport) => {
    const error = await sendFailing(transport, createReadStream(join(dir, 'missing.pdf')));
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(server.requests).toHaveLength(0);
  });

  const CHUNK = 16 * 1024;
  type When = 'before' | 'queued' | number;
  type Kind = 'readable' | 'web' | 'iterable';

  /** A source of `kind` that fails with `error` before it is read, while queued (on `fail()`) or at byte `at`. */
  function failing(kind: Kind, when: When, error: Error): { media: NamedMedia; fail: () => void } {
    const limit = typeof when === 'number' ? when : 0;
    let failed = when === 'before';
    let fail = () => {
      failed = true;
    };
    let data: NamedMedia['data'];
    if (kind === 'readable') {
      let sent = 0;
      const stream = new Readable({
        read() {
          if (failed || sent >= limit) return void this.destroy(error);
          const size = Math.min(CHUNK, limit - sent);
          sent += size;
          this.push(Buffer.alloc(size, 1));
        },
      });
      if (failed) stream.destroy(error);
      fail = () => stream.destroy(error);
      data = stream;
    } else if (kind === 'web') {
      let sent = 0;
      let control: ReadableStreamDefaultController<Uint8Array> | undefined;
      data = new ReadableStream<Uint8Array>({
        start(controller) {
          control = controller;
          if (failed) controller.error(error);
        },
        pull(controller) {
          if (failed || sent >= limit) return controller.error(error);
          const size = Math.min(CHUNK, limit - sent);
          sent += size;
          controller.enqueue(new Uint8Array(size).fill(1));
        },
      });
      fail = () => control?.error(error);
    } else {
      data = (async function* () {
        for (let sent = 0; !failed && sent < limit; sent += CHUNK) yield new Uint8Array(Math.min(CHUNK, limit - sent));
        throw error;
      })();
    }
    return { media: { data, filename: 'scan.pdf' }, fail };
  }

  it('whatever the source, the moment and the transport (property)', async () => {
    const when = fc.oneof(
      fc.constant<When>('before'),
      fc.constant<When>('queued'),
      fc.integer({ min: 0, max: 256 * 1024 }),
    );
    const kind = fc.constantFrom<Kind>('readable', 'web', 'iterable');
    await fc.assert(
      fc.asyncProperty(kind, when, fc.constantFrom('undici', 'fetch' as const), async (k, w, transport) => {
        server.requests.length = 0;
        const original = new Error(`disk went away (${k}, ${w})`);
        const { media, fail } = failing(k, w, original);
        if (w !== 'queued') {
          const error = await sendFailing(transport, media);
          expect(error.cause).toBe(original);
          expect(server.requests).toHaveLength(0);
          return;
        }
        // Hold the pool's one connection with a text send, queue the media send behind it,
        // fail the source while it waits, then free the connection.
        held = new Promise((resolve) => {
          release = resolve;
        });
        const holder = clients[transport].messages.send({ ...params, type: 'text', content: 'hold' });
        await until(
          () => server.requests.length === 1,
          () => 'the held text send never reached the server',
        );
        const failed = sendFailing(transport, media);
        // Queued: the pool holds two requests, the held one running and the media send waiting.
        const inPool = () => Object.values(agentOf[transport].stats).reduce((n, stats) => n + stats.size, 0);
        await until(
          () => inPool() >= 2,
          () => `the media send never queued behind the held one: ${JSON.stringify(agentOf[transport].stats)}`,
        );
        fail();
        // A turn of the loop, for the source's error to be emitted while the send still waits.
        await new Promise((resolve) => setImmediate(resolve));
        release();
        expect((await failed).cause).toBe(original);
        await holder;
        expect(server.requests.map((r) => r.headers['content-type'])).toEqual(['application/json']);
      }),
      { seed: 11, numRuns: 40 },
    );
  });

  it.each([
    ['more', 5, /more than its size, 5 bytes/],
    ['fewer', 20, /ended after 10 of its 20 bytes/],
  ])('a stream with %s bytes than its declared size is refused, not sent cut off', async (_name, size, message) => {
    for (const transport of ['undici', 'fetch'] as const) {
      const media = { data: Readable.from([Buffer.alloc(10, 1)]), filename: 'scan.pdf', size };
      const error = await sendFailing(transport, media);
      expect(error.message).toMatch(message);
      expect(server.requests).toHaveLength(0);
    }
  });

  it('a stream already read to its end is refused, not sent as an empty file', async () => {
    const stream = Readable.from([Buffer.alloc(10, 1)]);
    for await (const _ of stream);
    const error = await clients.undici.messages
      .send({ ...params, media: { data: stream, filename: 'scan.pdf' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/already read to its end/);
    expect(server.requests).toHaveLength(0);
  });

  it('leaves no listener of its own on a stream it read whole', async () => {
    const stream = Readable.from([Buffer.alloc(10, 1)]);
    await clients.undici.messages.send({ ...params, media: { data: stream, filename: 'scan.pdf' } });
    // Node's own stream iterator leaves its end-of-stream listeners: compare with a plain read.
    const plain = Readable.from([Buffer.alloc(10, 1)]);
    for await (const _ of plain);
    await new Promise((resolve) => setImmediate(resolve));
    const count = (s: Readable) => [s.listenerCount('error'), s.listenerCount('close')];
    expect(count(stream)).toEqual(count(plain));
  });
});
