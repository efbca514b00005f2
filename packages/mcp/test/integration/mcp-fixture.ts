/**
 * The MCP server in this process, driven by the MCP SDK's own Client over its in-memory transport
 * pair, against a sandbox on loopback: what mcp.test.ts and mcp-send.test.ts share. Every
 * result is kept (`seen`), so a file can check at its end that none showed the API key.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  type ElicitResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { MessagingClient } from 'tenant-messaging';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createMcpServer } from '../../src/serve/server.js';
import { createToolbox, type Toolbox, type ToolboxOptions } from '../../src/tools/toolbox.js';

/** How the test client answers a confirmation, and what it declares. */
export interface Elicit {
  /** The capability declared: `{ form: {} }`, or `{}` as clients older than modes declare it. */
  readonly capability: Record<string, unknown>;
  readonly answer: (message: string) => ElicitResult | Promise<ElicitResult>;
}

export interface Connected {
  readonly mcp: Client;
  readonly tools: Tool[];
  readonly toolbox: Toolbox;
  /** The messages of the confirmations the client was asked. */
  readonly asked: string[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

export interface Fixture {
  readonly sandbox: RunningSandbox;
  /** A client of `tenant` (acme's full key by default). */
  client(tenant?: string, key?: 'full' | 'noSend' | 'revoked'): MessagingClient;
  /** A server over `options` (acme's client by default), connected to a test client that listed its tools. */
  connect(options?: Partial<ToolboxOptions>, elicit?: Elicit): Promise<Connected>;
  /** POST /messages the sandbox has seen so far. */
  posts(): number;
  /** Every result any call returned, as JSON. */
  readonly seen: string[];
  /** Every key of every tenant: none may appear in a result. */
  readonly keys: string[];
  /** Closes what `connect` opened (after each test). */
  disconnect(): Promise<void>;
  close(): Promise<void>;
}

/** The first text of a result. */
export const text = (result: CallToolResult): string => {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
};

export async function startFixture(): Promise<Fixture> {
  const sandbox = await startSandbox({ delivery: { deliveredAfterMs: 20, readAfterMs: 40 } });
  const clients: MessagingClient[] = [];
  const open: (() => Promise<void>)[] = [];
  const seen: string[] = [];
  const client = (tenant = 'acme', key: 'full' | 'noSend' | 'revoked' = 'full') => {
    const { baseUrl, keys } = sandbox.tenants[tenant] as RunningSandbox['tenants'][string];
    const made = new MessagingClient({ baseUrl, apiKey: keys[key], logLevel: 'off' });
    clients.push(made);
    return made;
  };
  const acme = client();
  return {
    sandbox,
    client,
    seen,
    keys: Object.values(sandbox.tenants).flatMap((tenant) => Object.values(tenant.keys)),
    posts: () => sandbox.counters.requests['POST /messages'] ?? 0,
    async connect(options = {}, elicit) {
      const toolbox = createToolbox({ client: acme, ...options });
      const server = createMcpServer(toolbox);
      const asked: string[] = [];
      const mcp = new Client(
        { name: 'test', version: '1.0.0' },
        elicit ? { capabilities: { elicitation: elicit.capability } } : {},
      );
      if (elicit) {
        mcp.setRequestHandler(ElicitRequestSchema, (request) => {
          asked.push(request.params.message);
          return elicit.answer(request.params.message);
        });
      }
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      await mcp.connect(clientSide);
      // Listed first: the client then checks each structuredContent against the tool's output schema.
      const { tools } = await mcp.listTools();
      open.push(async () => {
        await mcp.close();
        await server.close();
      });
      return {
        mcp,
        tools,
        toolbox,
        asked,
        async call(name, args = {}) {
          const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
          seen.push(JSON.stringify(result));
          return result;
        },
      };
    },
    async disconnect() {
      for (const close of open.splice(0)) await close();
    },
    async close() {
      for (const close of open.splice(0)) await close();
      await Promise.all(clients.map((made) => made.close()));
      await sandbox.close();
    },
  };
}

/**
 * The fixture of a test file (call at its top level): started before its tests, each test's
 * servers closed and faults cleared after it, closed after them all. Used inside a test only.
 *
 * @example
 * ```ts
 * const fx = fixtureForFile();
 * it('...', async () => { const server = await fx.connect({ allowSend: true }) })
 * ```
 */
export function fixtureForFile(): Fixture {
  let fx: Fixture | undefined;
  beforeAll(async () => {
    fx = await startFixture();
  });
  afterEach(async () => {
    fx?.sandbox.faults.clear();
    await fx?.disconnect();
  });
  afterAll(() => fx?.close());
  // What the tests read is the fixture started in beforeAll, whenever they read it.
  return new Proxy({} as Fixture, {
    get: (_target, key) => {
      if (fx === undefined) throw new Error('the fixture starts in beforeAll');
      return Reflect.get(fx, key);
    },
  });
}
