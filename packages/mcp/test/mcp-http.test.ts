/**
 * `tenant-messaging-mcp --http` as a real process, driven by the MCP SDK's own client. Its door
 * stays open: clients that end with `client.close()` (no DELETE) connect and leave more times than
 * there are sessions, and every one is served; the session reclaimed to make room answers 404 (the
 * protocol's word for "initialize again"), and its client then initializes again. A token sent in
 * a query string or a path, percent-encoded or base64, never reaches stderr in a form that decodes
 * back to it. Needs `npm run build` first (`npm test` does).
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodings } from '../../bin-kit/test/decodings.js';
import { MAX_SESSIONS } from '../src/sessions.js';
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
  it('serves more connect/close cycles than there are sessions; the reclaimed session gets 404, then initializes again', async () => {
    const kept = await connect();
    expect((await kept.listTools()).tools.length).toBeGreaterThan(0);
    const cycles = MAX_SESSIONS + 4;
    let served = 0;
    for (let i = 0; i < cycles; i++) {
      const client = await connect(); // initialize answered, or this throws
      await client.ping();
      served++;
      await client.close(); // no DELETE: the session is abandoned, as the MCP SDK's clients leave it
    }
    expect(served).toBe(cycles);
    // The kept client was the least recently used: reclaimed to make room.
    const gone = await kept.listTools().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(gone).toBeInstanceOf(StreamableHTTPError);
    expect((gone as StreamableHTTPError).code).toBe(404);
    await kept.close();
    const again = await connect();
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
    await again.close();
    expect(run.stderr()).not.toContain('Too many sessions');
  });
});

describe('tenant-messaging-mcp --http: the token in the log', () => {
  it('a token in the query or the path, in any encoding, never reaches stderr in a form that decodes to it', async () => {
    const bytes = [...Buffer.from(TOKEN, 'utf8')];
    const spellings = [
      encodeURIComponent(TOKEN),
      encodeURIComponent(TOKEN).replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase()),
      bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
      bytes.map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
      new URLSearchParams({ t: TOKEN }).toString().slice(2),
      Buffer.from(TOKEN).toString('base64url'),
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
    for (const form of decodings(logged)) expect(form).not.toContain(TOKEN);
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
