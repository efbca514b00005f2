/**
 * `tenant-messaging-mcp --http` as a real process, driven by the MCP SDK's own client. At the
 * session cap, no session used in the last minute is reclaimed: a new client gets 503 with
 * `Retry-After`, and a live one never loses its session (the reclaim of older ones, on a fake
 * clock, is sessions.test.ts). A token sent in a query string or a path, in any encoding of
 * decodings.ts (UTF-16 hex or base64, percent-encoded up to 70 times...), never reaches stderr in a
 * form that decodes back to it. Needs `npm run build` first (`npm test` does).
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENCODINGS, tracesOf } from '../../../bin-kit/test/decodings.js';
import { MAX_SESSIONS } from '../../src/serve/sessions.js';
import { BIN, type Child, httpUrl, startBin, waitFor } from './bin-fixture.js';

/** A token with characters a URL encodes (`+`, `/`, `=`), as `openssl rand -base64` makes them. */
const TOKEN = 'Tok+en/Zm9v=0123456789abcdefXYZ';

let sandbox: RunningSandbox;
let run: Child;
let url: string;

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error('run `npm run build` first (npm test does)');
  sandbox = await startSandbox();
  const tenant = sandbox.tenants['acme'] as RunningSandbox['tenants'][string];
  run = startBin(['--http', '127.0.0.1:0'], {
    TENANT_MESSAGING_BASE_URL: tenant.baseUrl,
    TENANT_MESSAGING_API_KEY: tenant.keys.full,
    TENANT_MESSAGING_MCP_TOKEN: TOKEN,
    TENANT_MESSAGING_LOG: undefined,
  });
  url = await httpUrl(run);
});
afterAll(async () => {
  run?.child.kill('SIGTERM');
  await run?.exit;
  await sandbox?.close();
});

/** A client of the server, initialized (its GET stream opens on its own). */
async function connect(): Promise<Client> {
  const client = new Client({ name: 'cycle', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return client;
}

describe('tenant-messaging-mcp --http: sessions', () => {
  it('at the cap, sessions used in the last minute are kept: new clients get 503 with Retry-After, never a live session lost or a 404', async () => {
    const kept = await connect();
    expect((await kept.listTools()).tools.length).toBeGreaterThan(0);
    // Abandoned sessions (client.close() sends no DELETE) fill the table, each used just now.
    for (let i = 0; i < MAX_SESSIONS - 1; i++) {
      const client = await connect(); // initialize answered, or this throws
      await client.ping();
      await client.close();
    }
    // Ten initializes at once: none evicts a session a client may still be using, each is told when to try again.
    const refused = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(url, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${TOKEN}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'late', version: '1.0.0' } },
          }),
        }),
      ),
    );
    for (const response of refused) {
      expect(response.status).toBe(503);
      const seconds = Number(response.headers.get('retry-after'));
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
      await response.body?.cancel();
    }
    // The live client keeps its session: no 404, no new initialize.
    expect((await kept.listTools()).tools.length).toBeGreaterThan(0);
    await kept.close();
    expect(run.stderr()).not.toContain('Too many sessions');
  });
});

describe('tenant-messaging-mcp --http: the token in the log', () => {
  it('a token in the query or the path, in any encoding, never reaches stderr in a form that decodes to it', async () => {
    const bytes = [...Buffer.from(TOKEN, 'utf8')];
    const spellings = [
      // Every encoding of the bin kit's tests: UTF-16 hex and base64, percent-encoded 4 and 70 times...
      ...Object.values(ENCODINGS).map((encode) => encode(TOKEN)),
      bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
      new URLSearchParams({ t: TOKEN }).toString().slice(2),
    ];
    const before = run.stderr().length;
    for (const spelling of spellings) {
      for (const target of [`${url}?token=${spelling}`, `${url}/${spelling}`]) {
        const refused = await fetch(target, { method: 'POST', body: '{}' });
        expect(refused.status).toBe(401);
      }
    }
    const logged = run.stderr().slice(before);
    expect(logged.match(/refused a request without a valid bearer token/g)).toHaveLength(spellings.length * 2);
    expect(tracesOf(logged, [TOKEN])).toEqual([]);
  });

  it('logs of a refused request its path only, cut to 200 characters: a 15 KB hostile URL costs one short line', async () => {
    const before = run.stderr().length;
    // Under node:http's 16 KB header limit, past which it answers 431 without the handler.
    const path = `/mcp${'/a'.repeat(7_000)}`;
    const refused = await fetch(`${url.replace(/\/mcp$/, '')}${path}?query=${'b'.repeat(500)}`, { method: 'POST' });
    expect(refused.status).toBe(401);
    const [line = ''] = await waitFor(() => run.stderr().slice(before), /^.*refused a request.*$/m);
    expect(line).toContain(`(POST /mcp/a/a/a`);
    expect(line).toContain(`(${path.length.toLocaleString('en-US')} characters)`);
    expect(line).not.toContain('query=');
    expect(line.length).toBeLessThan(400);
  });
});
