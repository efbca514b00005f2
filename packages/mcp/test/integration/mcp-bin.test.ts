/**
 * `tenant-messaging-mcp` as users run it: the built bin (packages/mcp/dist/main.js, which imports
 * the built SDK) as a subprocess, driven by the MCP SDK's own Client, over stdio and over
 * Streamable HTTP, against the sandbox on loopback. Stdout carries MCP messages only; the key and
 * the token are never printed; without TENANT_MESSAGING_MCP_TOKEN `--http` refuses to start (exit
 * 2), as does a bad flag, with the usage; a missing or wrong token is a 401; a stop signal closes
 * the server (143 for SIGTERM), and the end of stdin too (0). Needs `npm run build` first (`npm
 * test` does).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type Child, childTransport, httpUrl, startBin, TOKEN } from './bin-fixture.js';

const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
  version: string;
};
const SENDER = '+15550001001';

let sandbox: RunningSandbox;
let tenant: RunningSandbox['tenants'][string];
let dir: string;

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error('run `npm run build` first (npm test does)');
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 20, readAfterMs: 40 } });
  tenant = sandbox.tenants['acme'] as RunningSandbox['tenants'][string];
  dir = await mkdtemp(join(tmpdir(), 'tm-mcp-'));
});
afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function start(args: string[], env: Record<string, string | undefined>): Child {
  return startBin(args, { TENANT_MESSAGING_API_KEY: undefined, TENANT_MESSAGING_BASE_URL: tenant.baseUrl, ...env });
}

const posts = () => sandbox.counters.requests['POST /messages'] ?? 0;
const first = (result: unknown) => (result as CallToolResult).content[0];

describe('tenant-messaging-mcp (the bin)', () => {
  it('over stdio, with the key from --api-key-file: tools, one send, stdout MCP only, no key shown; stdin closed exits 0', async () => {
    const keyFile = join(dir, 'key');
    await writeFile(keyFile, `${tenant.keys.full}\n`);
    const run = start(['--api-key-file', keyFile, '--allow-send', '--max-sends', '5'], {});
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(childTransport(run.child));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('send_message');
    const before = posts();
    const prepared = await client.callTool({
      name: 'prepare_send',
      arguments: { sender_phone: SENDER, to_phone: SANDBOX_PHONES.reads, type: 'text', content: 'From the bin' },
    });
    const approval = (prepared.structuredContent as { approval: string }).approval;
    const sent = await client.callTool({ name: 'send_message', arguments: { approval } });
    await client.callTool({ name: 'send_message', arguments: { approval } });
    expect(sent.structuredContent).toMatchObject({ content: 'From the bin', delivery_status: 'sent' });
    expect(posts()).toBe(before + 1);
    await client.close();
    expect(await run.exit).toBe(0);
    for (const line of run.stdout().trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(run.stderr()).toContain('mcp: serving over stdio (sending allowed, at most 5)');
    expect(run.stdout() + run.stderr()).not.toContain(tenant.keys.full);
  });

  it('over HTTP: 401 without the token or with a wrong one; with it, tools and a confirmed send; SIGTERM exits 143', async () => {
    const run = start(['--http', '127.0.0.1:0', '--allow-send'], {
      TENANT_MESSAGING_API_KEY: tenant.keys.full,
      TENANT_MESSAGING_MCP_TOKEN: TOKEN,
    });
    const url = await httpUrl(run);
    const initialize = {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    };
    const missing = await fetch(url, initialize);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await fetch(url, {
      ...initialize,
      headers: { ...initialize.headers, authorization: `Bearer ${TOKEN}x` },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain(TOKEN);

    const client = new Client({ name: 'http-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    });
    await client.connect(transport);
    expect((await client.listTools()).tools).toHaveLength(8);
    expect(first(await client.callTool({ name: 'get_usage', arguments: {} }))).toMatchObject({ type: 'text' });
    const before = posts();
    const prepared = await client.callTool({
      name: 'prepare_send',
      arguments: { sender_phone: SENDER, to_phone: SANDBOX_PHONES.reads, type: 'text', content: 'Over HTTP' },
    });
    const approval = (prepared.structuredContent as { approval: string }).approval;
    const sent = await client.callTool({ name: 'send_message', arguments: { approval } });
    expect(sent.structuredContent).toMatchObject({ content: 'Over HTTP' });
    expect(asked).toEqual([expect.stringContaining(SANDBOX_PHONES.reads)]);
    expect(posts()).toBe(before + 1);

    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(143);
    await client.close().catch(() => {});
    expect(run.stdout()).toBe('');
    expect(run.stderr()).toContain('refused a request without a valid bearer token');
    for (const secret of [tenant.keys.full, TOKEN]) expect(run.stderr()).not.toContain(secret);
  });

  it('--http without TENANT_MESSAGING_MCP_TOKEN refuses to start: exit 2, naming the variable', async () => {
    const run = start(['--http', '127.0.0.1:0'], {
      TENANT_MESSAGING_API_KEY: tenant.keys.full,
      TENANT_MESSAGING_MCP_TOKEN: undefined,
    });
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toMatch(/^UsageError: --http needs TENANT_MESSAGING_MCP_TOKEN/);
    expect(run.stderr()).toContain('See `tenant-messaging-mcp --help`.');
    expect(run.stdout()).toBe('');
  });

  it('refuses a bad flag with a usage error, the usage and exit 2, before anything starts', async () => {
    const cases: [string[], RegExp][] = [
      [['--alow-send'], /^UsageError: unknown option '--alow-send' \(did you mean --allow-send\?\)\n/],
      [['--allow-send', '--max-sends'], /^UsageError: option '--max-sends <n>' argument missing\n/],
      [['--http', '--allow-send'], /^UsageError: option '--http <host:port>' argument missing\n/],
      [['--allow-send=yes'], /^UsageError: option '--allow-send' takes no value\n/],
      [['mcp', '--allow-send'], /^UsageError: unexpected argument 'mcp': tenant-messaging-mcp takes flags only\n/],
      [['--allow-send', '--max-sends', '0'], /^UsageError: --max-sends must be a whole number >= 1, got '0'\n/],
      [['--api-key', 'tm_live_on_the_command_line'], /^UsageError: --api-key is refused: /],
    ];
    const runs = cases.map(([args]) => start(args, { TENANT_MESSAGING_API_KEY: tenant.keys.full }));
    for (const [i, run] of runs.entries()) {
      const [args, message] = cases[i] as [string[], RegExp];
      expect(await run.exit, args.join(' ')).toBe(2);
      expect(run.stderr(), args.join(' ')).toMatch(message);
      expect(run.stderr(), args.join(' ')).toContain('See `tenant-messaging-mcp --help`.');
      expect(run.stdout(), args.join(' ')).toBe('');
    }
    // A flag the parser refused: the usage names every flag.
    expect(runs[0]?.stderr()).toContain(
      'Usage: tenant-messaging-mcp [--allow-send] [--max-sends <n>] [--allow-recipients <patterns>] [--http <host:port>]',
    );
    expect(runs[6]?.stderr()).not.toContain('tm_live_on_the_command_line');
  });

  it('--version and -V print the version, --help the usage and every flag: exit 0, nothing served', async () => {
    for (const flag of ['--version', '-V']) {
      const run = start([flag], {});
      expect(await run.exit).toBe(0);
      expect(run.stdout()).toBe(`${version}\n`);
      expect(run.stderr()).toBe('');
    }
    const help = start(['--help'], {});
    expect(await help.exit).toBe(0);
    expect(help.stdout()).toMatch(/^Usage: tenant-messaging-mcp /);
    for (const flag of ['--allow-send', '--max-sends <n>', '--allow-recipients <patterns>', '--http <host:port>']) {
      expect(help.stdout()).toContain(flag);
    }
    for (const flag of ['--base-url <url>', '--api-key-file <path>', '--verbose', 'TENANT_MESSAGING_MCP_TOKEN']) {
      expect(help.stdout()).toContain(flag);
    }
    expect(help.stdout()).not.toContain('--api-key <');
    expect(help.stderr()).toBe('');
  });
});
