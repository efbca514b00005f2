import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MessagingClient, mediaFromPath, type UploadProgress } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, messageLog, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let dir: string;
const SIZE = 4 * 1024 * 1024;

beforeAll(async () => {
  server = await startServer((_req, res) => json(res, 201, { data: messageLog() }));
  dir = await mkdtemp(join(tmpdir(), 'tm-progress-'));
  await writeFile(join(dir, 'big.pdf'), Buffer.alloc(SIZE, 7));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const params = { sender_phone: '+1', to_phone: '+2', type: 'document' } as const;

describe('onUploadProgress', () => {
  it.each(['undici', 'fetch'] as const)(
    'reports growing byte counts up to the full body over %s',
    async (transport) => {
      const client = new MessagingClient({
        baseUrl: server.url,
        apiKey: 'k',
        ...(transport === 'fetch' ? { fetch: globalThis.fetch } : {}),
      });
      const reports: UploadProgress[] = [];
      await client.messages.send(
        { ...params, media: mediaFromPath(join(dir, 'big.pdf')) },
        { onUploadProgress: (p) => reports.push(p) },
      );
      const sent = server.requests.at(-1)?.body.length ?? 0;
      expect(sent).toBeGreaterThan(SIZE);
      expect(reports.length).toBeGreaterThan(3);
      expect(reports.every((r, i) => i === 0 || r.loaded >= (reports[i - 1]?.loaded ?? 0))).toBe(true);
      expect(reports.at(-1)).toEqual({ loaded: sent, total: sent });
    },
  );

  it('has no total for a stream of unknown size, and a throwing callback does not break the upload', async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) };
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k', logger });
    const reports: UploadProgress[] = [];
    const log = await client.messages.send(
      { ...params, media: { data: Readable.from([Buffer.alloc(100_000, 1)]), filename: 'x.pdf' } },
      {
        onUploadProgress: (p) => {
          reports.push(p);
          throw new Error('callback bug');
        },
      },
    );
    expect(log.id).toBe(42);
    expect(reports.at(-1)?.total).toBeUndefined();
    expect(reports.at(-1)?.loaded).toBeGreaterThan(100_000);
    expect(warnings).toEqual(['[tenant-messaging] onUploadProgress threw; the upload goes on']);
  });
});
