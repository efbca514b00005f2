/**
 * A file upload reuses its read buffers once the socket has written them. These tests hold that
 * reuse to its one rule, that no byte is changed before it left: bytes arrive intact whatever
 * the server's pace, with uploads side by side, with a subscriber keeping undici's body chunks or
 * a socket that keeps them; and an abandoned upload closes its file. The reuse itself, and TLS,
 * are in upload-buffers-memory.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readdir, readlink } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { MessagingClient, mediaFromPath, SendOutcomeUnknownError } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentSend as base, mediaOf, startUploadServer, tempFiles } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const KiB = 1024;

/**
 * A loopback server that reads each body slowly (a pause of `pauseMs` after every `everyBytes`
 * bytes), so the client's socket fills and its writes complete late, after later reads.
 */
const startSlowServer = (readPace: { everyBytes: number; pauseMs: number }) => startUploadServer({ readPace });

/** Random bytes whose every 64 KiB window differs, so a buffer reused too early shows. */
function content(size: number, seed: number): Buffer {
  const bytes = randomBytes(size);
  if (size > 0) bytes.writeUInt8(seed & 0xff, 0);
  return bytes;
}

let files: Awaited<ReturnType<typeof tempFiles>>;
const sizes = [0, 1, 64 * KiB - 1, 64 * KiB, 64 * KiB + 1, 3 * 64 * KiB, 1_000_003, 6 * 1024 * KiB];
const bytesOf = new Map<string, Buffer>();

beforeAll(async () => {
  const named: Record<string, Buffer> = {};
  sizes.forEach((size, i) => {
    const bytes = content(size, i);
    named[`f${size}.bin`] = bytes;
    bytesOf.set(`f${size}.bin`, bytes);
  });
  files = await tempFiles(named);
});
afterAll(async () => {
  await files.remove();
});

describe('a file upload reuses its read buffers only once the socket has written them', () => {
  it('delivers every byte intact, whatever the size, the server pace and the uploads side by side', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...sizes), { minLength: 1, maxLength: 3 }),
        fc.record({
          everyBytes: fc.integer({ min: 16 * KiB, max: 512 * KiB }),
          pauseMs: fc.integer({ min: 0, max: 3 }),
        }),
        async (chosen, pace) => {
          const server = await startSlowServer(pace);
          const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
          try {
            await Promise.all(
              chosen.map((size) =>
                client.messages.send({ ...base, media: mediaFromPath(join(files.dir, `f${size}.bin`)) }),
              ),
            );
            expect(server.requests).toHaveLength(chosen.length);
            const got = await Promise.all(server.requests.map(mediaOf));
            const want = chosen.map((size) => bytesOf.get(`f${size}.bin`) as Buffer);
            const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
            expect(got.map(digest).sort()).toEqual(want.map(digest).sort());
          } finally {
            await client.close();
            await server.close();
          }
        },
      ),
      { numRuns: 12, seed: 20261123 },
    );
  }, 60_000);

  it('delivers every byte intact while the socket stays backed up (the reader pauses after every 64 KiB)', async () => {
    // The random paces above rarely keep the socket full for long; this one does, so its writes
    // complete long after the reads that follow them: giving a buffer back before its write
    // callback fails here every time.
    const server = await startSlowServer({ everyBytes: 64 * KiB, pauseMs: 2 });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    const name = `f${6 * 1024 * KiB}.bin`;
    try {
      await client.messages.send({ ...base, media: mediaFromPath(join(files.dir, name)) });
    } finally {
      await client.close();
      await server.close();
    }
    expect((await mediaOf(server.requests[0]!)).equals(bytesOf.get(name) as Buffer)).toBe(true);
  });

  it("leaves undici's body chunks untouched while a diagnostics subscriber may keep them", async () => {
    const server = await startSlowServer({ everyBytes: 128 * KiB, pauseMs: 2 });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    const kept: Buffer[] = [];
    const keep = (message: unknown) => {
      const { chunk } = message as { chunk: Buffer | string };
      kept.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    };
    subscribe('undici:request:bodyChunkSent', keep);
    try {
      await client.messages.send({ ...base, media: mediaFromPath(join(files.dir, `f${6 * 1024 * KiB}.bin`)) });
    } finally {
      unsubscribe('undici:request:bodyChunkSent', keep);
      await client.close();
      await server.close();
    }
    // Read after the upload: every chunk still holds what was sent.
    expect(Buffer.concat(kept).equals(server.requests[0]?.body as Buffer)).toBe(true);
  });

  it('leaves every published chunk untouched while subscribers come and go during the upload', async () => {
    const server = await startSlowServer({ everyBytes: 64 * KiB, pauseMs: 1 });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    const kept: { chunk: Buffer; copy: Buffer }[] = [];
    const keep = (message: unknown) => {
      const { chunk } = message as { chunk: Buffer | string };
      if (typeof chunk !== 'string') kept.push({ chunk, copy: Buffer.from(chunk) });
    };
    let subscribed = false;
    const toggle = setInterval(() => {
      subscribed = !subscribed;
      if (subscribed) subscribe('undici:request:bodyChunkSent', keep);
      else unsubscribe('undici:request:bodyChunkSent', keep);
    }, 3);
    try {
      await client.messages.send({ ...base, media: mediaFromPath(join(files.dir, `f${6 * 1024 * KiB}.bin`)) });
    } finally {
      clearInterval(toggle);
      unsubscribe('undici:request:bodyChunkSent', keep);
      await client.close();
      await server.close();
    }
    expect(kept.length).toBeGreaterThan(5);
    expect(kept.filter(({ chunk, copy }) => !chunk.equals(copy))).toHaveLength(0);
  });

  it.each(['a subclass', 'an instance patch'] as const)(
    "leaves the chunks alone on a socket that is not exactly Node's (%s keeping them)",
    async (kind) => {
      const server = await startSlowServer({ everyBytes: 128 * KiB, pauseMs: 2 });
      const kept: Buffer[] = [];
      // Keeps every body chunk it writes, as a recording mock socket might, past its write callback.
      // (Node's connect() puts its own write back on a subclass: a mock overrides _write and _writev.)
      type Done = (error?: Error | null) => void;
      type Writev = NonNullable<net.Socket['_writev']>;
      function keepingWrite(this: net.Socket, chunk: unknown, encoding: BufferEncoding, done: Done): void {
        if (Buffer.isBuffer(chunk)) kept.push(chunk);
        Reflect.apply(net.Socket.prototype._write, this, [chunk, encoding, done]);
      }
      function keepingWritev(this: net.Socket, chunks: { chunk: unknown; encoding: BufferEncoding }[], done: Done) {
        for (const { chunk } of chunks) if (Buffer.isBuffer(chunk)) kept.push(chunk);
        Reflect.apply(net.Socket.prototype._writev as Writev, this, [chunks, done]);
      }
      class KeepingSocket extends net.Socket {}
      KeepingSocket.prototype._write = keepingWrite;
      KeepingSocket.prototype._writev = keepingWritev as Writev;
      const open = (options: net.NetConnectOpts) => {
        if (kind === 'a subclass') return new KeepingSocket(options).connect(options);
        const socket = new net.Socket(options);
        socket._write = keepingWrite;
        socket._writev = keepingWritev as Writev;
        return socket.connect(options);
      };
      const connect = net.connect;
      net.connect = open as typeof net.connect;
      const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
      try {
        await client.messages.send({ ...base, media: mediaFromPath(join(files.dir, `f${6 * 1024 * KiB}.bin`)) });
      } finally {
        net.connect = connect;
        await client.close();
        await server.close();
      }
      expect(kept.length).toBeGreaterThan(10);
      expect(Buffer.concat(kept).equals(server.requests[0]?.body as Buffer)).toBe(true);
    },
  );

  it('closes the file when the upload is cut off', async () => {
    const server = await startSlowServer({ everyBytes: 64 * KiB, pauseMs: 1_000 });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k', timeout: 300, maxRetries: 0 });
    const path = join(files.dir, `f${6 * 1024 * KiB}.bin`);
    try {
      const error = await client.messages.send({ ...base, media: mediaFromPath(path) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SendOutcomeUnknownError);
      // The stream closes its descriptor on its own turn after the error: wait until it has.
      let open = await openFds(path);
      await until(
        async () => {
          open = await openFds(path);
          return open === 0;
        },
        () => `${open} descriptors of ${path} still open`,
      ).catch(() => undefined);
      expect(open).toBe(0);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

/** How many of this process's file descriptors point at `path` (Linux). */
async function openFds(path: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target === path) count++;
  }
  return count;
}
