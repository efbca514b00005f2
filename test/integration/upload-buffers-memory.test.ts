/**
 * The reuse of a file upload's read buffers happens, over plain TCP and over TLS: a 96 MB upload
 * holds a few buffers, and bytes sent over TLS through reused buffers arrive intact while the
 * server reads slowly. The servers that measure run in their own process, so their received
 * chunks are not counted in this one's memory. The certificate is a test fixture for 127.0.0.1.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { MessagingClient, mediaFromPath } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentSend as base, documentStored, mediaOf, startUploadServer, tempFiles } from '../helpers/server.js';

const answer = JSON.stringify(documentStored);
const MiB = 1024 * 1024;
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const tlsFiles = { key: fixture('loopback-key.pem'), cert: fixture('loopback-cert.pem') };

let files: Awaited<ReturnType<typeof tempFiles>>;
beforeAll(async () => {
  // The client's own Agent uses the default CAs: trust the fixture's certificate beside them.
  setDefaultCACertificates([...getCACertificates('default'), readFileSync(tlsFiles.cert, 'utf8')]);
  files = await tempFiles({ 'big.bin': Buffer.alloc(96 * MiB, 7), 'mid.bin': randomBytes(5 * MiB + 3) });
});
afterAll(async () => {
  await files.remove();
});

/** A server in its own process that drains every body and answers a stored log. */
async function startDrainingServer(protocol: 'http' | 'https') {
  const options =
    protocol === 'https'
      ? `{ key: fs.readFileSync(${JSON.stringify(tlsFiles.key)}), cert: fs.readFileSync(${JSON.stringify(tlsFiles.cert)}) }`
      : '{}';
  const child: ChildProcessByStdio<null, Readable, null> = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('node:fs');
       const s = require('node:${protocol}').createServer(${options}, (q, r) => { q.resume(); q.on('end', () => r.writeHead(201, { 'content-type': 'application/json' }).end(process.argv[1])); });
       s.listen(0, '127.0.0.1', () => console.log(s.address().port));`,
      answer,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (d: Buffer) => resolve(String(d).trim())),
  );
  return { url: `${protocol}://127.0.0.1:${port}`, close: () => child.kill() };
}

describe('a file upload reuses its read buffers', () => {
  it.each(['http', 'https'] as const)(
    "holds a 96 MB upload's buffers under 2 MB (%s)",
    async (protocol) => {
      const server = await startDrainingServer(protocol);
      const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k', timeout: 60_000 });
      try {
        // Warm: the connection and the code path exist before the baseline is taken.
        await client.messages.send({ ...base, media: new Blob(['warm']) });
        const baseline = process.memoryUsage().arrayBuffers;
        let peak = baseline;
        const sampler = setInterval(() => {
          peak = Math.max(peak, process.memoryUsage().arrayBuffers);
        }, 2);
        try {
          await client.messages.send({ ...base, media: mediaFromPath(join(files.dir, 'big.bin')) });
        } finally {
          clearInterval(sampler);
        }
        // Without reuse, fresh buffers per read pile up several times past this bound before a collection.
        expect((peak - baseline) / MiB).toBeLessThan(2);
      } finally {
        await client.close();
        server.close();
      }
    },
    60_000,
  );

  it('delivers every byte intact over TLS while the server reads slowly', async () => {
    const tls = { key: readFileSync(tlsFiles.key), cert: readFileSync(tlsFiles.cert) };
    const readPace = { everyBytes: 256 * 1024, pauseMs: 2 };
    const server = await startUploadServer({ readPace, tls });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    try {
      const path = join(files.dir, 'mid.bin');
      await Promise.all([1, 2].map(() => client.messages.send({ ...base, media: mediaFromPath(path) })));
      const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
      const want = digest(readFileSync(path));
      const received = await Promise.all(server.requests.map(mediaOf));
      expect(received.map(digest)).toEqual([want, want]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
