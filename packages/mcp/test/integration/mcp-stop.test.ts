/**
 * Stopping without losing answers, as a real process: `tenant-messaging-mcp` is sent SIGTERM
 * (over HTTP) or SIGINT (over stdio) while a `send_message` waits on a sandbox whose answer is
 * delayed. The client receives the send's result, a call made once the stop began is refused
 * without running, the message is stored once, and the process exits with 128 + the signal's
 * number within EXIT_BOUND_MS. Needs `npm run build` first (`npm test` does).
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_BOUND_MS } from '../../src/shell/exit.js';
import { BIN, type Child, childTransport, httpUrl, startBin, TOKEN, waitFor } from './bin-fixture.js';

const SENDER = '+15550001001';

let sandbox: RunningSandbox;
let tenant: RunningSandbox['tenants'][string];

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error('run `npm run build` first (npm test does)');
  sandbox = await startSandbox();
  tenant = sandbox.tenants['acme'] as RunningSandbox['tenants'][string];
});
afterAll(() => sandbox?.close());

const posts = () => sandbox.counters.requests['POST /messages'] ?? 0;
const stored = (content: string) => sandbox.messages('acme').filter((m) => m.content === content).length;
const text = (result: CallToolResult) => (result.content[0]?.type === 'text' ? result.content[0].text : '');

/**
 * Waits until `check()` holds (the sandbox's counters move as requests arrive), 20 s at most: a
 * hang detector, not a measure.
 */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

/**
 * Prepares `content`, starts send_message with a delayed answer, sends `signal` once the sandbox
 * has the POST, and returns the send's result, the result of a call made during the stop, and
 * how the process ended.
 */
async function signalMidSend(client: Client, run: Child, signal: 'SIGTERM' | 'SIGINT', content: string) {
  const prepared = await client.callTool({
    name: 'prepare_send',
    arguments: { sender_phone: SENDER, to_phone: SANDBOX_PHONES.reads, type: 'text', content },
  });
  const approval = (prepared.structuredContent as { approval: string }).approval;
  const before = posts();
  sandbox.faults.add({ kind: 'latency', latencyMs: 1_000, route: 'POST /messages', times: 1 });
  const sending = client.callTool({ name: 'send_message', arguments: { approval } }) as Promise<CallToolResult>;
  await until(() => posts() === before + 1);
  const signalled = performance.now();
  run.child.kill(signal);
  await waitFor(run.stderr, /mcp: stopping: no new calls/);
  const during = (await client.callTool({ name: 'get_usage', arguments: {} })) as CallToolResult;
  const sent = await sending;
  const code = await run.exit;
  return { sent, during, code, tookMs: performance.now() - signalled, posts: posts() - before };
}

describe('tenant-messaging-mcp stops without losing answers', () => {
  it('over HTTP, SIGTERM mid-send_message: the result reaches the client, new calls are refused, exit 143', async () => {
    const run = startBin(['--http', '127.0.0.1:0', '--allow-send'], {
      TENANT_MESSAGING_BASE_URL: tenant.baseUrl,
      TENANT_MESSAGING_API_KEY: tenant.keys.full,
      TENANT_MESSAGING_MCP_TOKEN: TOKEN,
    });
    const client = new Client({ name: 'stop-http', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: true } }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(await httpUrl(run)), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const outcome = await signalMidSend(client, run, 'SIGTERM', 'Sent while stopping (HTTP)');
    expect(outcome.sent.isError, text(outcome.sent)).toBeFalsy();
    expect(outcome.sent.structuredContent).toMatchObject({ content: 'Sent while stopping (HTTP)' });
    expect(text(outcome.during)).toMatch(/^The server is stopping: get_usage was not run/);
    expect(outcome.code).toBe(143);
    expect(outcome.tookMs).toBeLessThan(EXIT_BOUND_MS);
    expect([outcome.posts, stored('Sent while stopping (HTTP)')]).toEqual([1, 1]);
    await client.close().catch(() => {});
  });

  it('over stdio, SIGINT mid-send_message: the result reaches the client, exit 130', async () => {
    const run = startBin(['--allow-send'], {
      TENANT_MESSAGING_BASE_URL: tenant.baseUrl,
      TENANT_MESSAGING_API_KEY: tenant.keys.full,
    });
    const client = new Client({ name: 'stop-stdio', version: '1.0.0' });
    await client.connect(childTransport(run.child));
    const outcome = await signalMidSend(client, run, 'SIGINT', 'Sent while stopping (stdio)');
    expect(outcome.sent.structuredContent).toMatchObject({ content: 'Sent while stopping (stdio)' });
    expect(text(outcome.during)).toMatch(/^The server is stopping: get_usage was not run/);
    expect(outcome.code).toBe(130);
    expect(outcome.tookMs).toBeLessThan(EXIT_BOUND_MS);
    expect([outcome.posts, stored('Sent while stopping (stdio)')]).toEqual([1, 1]);
    for (const line of run.stdout().trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    await client.close().catch(() => {});
  });
});
