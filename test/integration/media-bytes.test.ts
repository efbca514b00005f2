/**
 * Whatever shape the caller's bytes come in, the server receives exactly those bytes: views into a
 * larger buffer at any offset (a `subarray`, a pooled Buffer), any length around the encoder's
 * 64 KiB piece size, cut into chunks at any points, as bytes, a Node stream, a web stream, an
 * async iterable or a Blob, over the default transport and over `fetch`.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { type MediaInput, MessagingClient } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaOf, startUploadServer, type TestServer } from '../helpers/server.js';

const KiB = 1024;
let server: TestServer;
let client: MessagingClient;
let viaFetch: MessagingClient;

beforeAll(async () => {
  server = await startUploadServer();
  client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
  viaFetch = new MessagingClient({ baseUrl: server.url, apiKey: 'k', fetch: globalThis.fetch });
});
afterAll(async () => {
  await client.close();
  await viaFetch.close();
  await server.close();
});

type Shape = 'bytes' | 'node stream' | 'web stream' | 'async iterable' | 'blob';

function mediaInput(shape: Shape, view: Uint8Array, pieces: Uint8Array[]): MediaInput {
  const filename = 'a.bin';
  switch (shape) {
    case 'bytes':
      return { data: view, filename };
    case 'node stream':
      return { data: Readable.from(pieces, { objectMode: false }), filename };
    case 'web stream':
      return {
        data: new ReadableStream<Uint8Array>({
          start(controller) {
            for (const piece of pieces) controller.enqueue(piece);
            controller.close();
          },
        }),
        filename,
      };
    case 'async iterable':
      return {
        data: (async function* () {
          yield* pieces;
        })(),
        filename,
      };
    case 'blob':
      return { data: new Blob([new Uint8Array(view)]), filename };
  }
}

describe('media bytes arrive exactly as given', () => {
  it('for any view, length, chunking and kind of source (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Shape>('bytes', 'node stream', 'web stream', 'async iterable', 'blob'),
        fc.boolean(),
        fc.integer({ min: 0, max: 4 * KiB }),
        fc.oneof(fc.integer({ min: 0, max: 200 * KiB }), fc.integer({ min: 64 * KiB - 2, max: 64 * KiB + 2 })),
        fc.uniqueArray(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
        async (shape, useFetch, offset, length, cuts) => {
          const backing = randomBytes(offset + length + 100);
          const view = backing.subarray(offset, offset + length);
          const points = [...new Set(cuts.map((c) => Math.floor(c * length)))].sort((a, b) => a - b);
          const pieces = [0, ...points]
            .map((start, i, all) => view.subarray(start, all[i + 1] ?? length))
            .filter((piece) => piece.byteLength > 0);
          const before = server.requests.length;
          await (useFetch ? viaFetch : client).messages.send({
            sender_phone: '+15550000001',
            to_phone: '+15550000002',
            type: 'document',
            media: mediaInput(shape, view, pieces),
          });
          const got = await mediaOf(server.requests[before]!);
          expect(got.equals(view)).toBe(true);
        },
      ),
      { numRuns: 80, seed: 20261123 },
    );
  }, 60_000);
});
