/**
 * The built bin (packages/mcp/dist/main.js) as a subprocess, as the bin's test files drive it:
 * spawned with an environment, its output kept, its exit awaited; an MCP client transport over
 * its stdio; the `--http` URL read from its ready line. Needs `npm run build` first.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type Child, spawnBin, waitFor } from '../../../bin-kit/test/integration/bin-process.js';

export { waitFor };

/** The built bin. */
export const BIN = join(import.meta.dirname, '../../dist/main.js');

/** A bearer token for `--http` (long enough to be accepted). */
export const TOKEN = 'mcp-test-token-0123456789abcdef';

export type { Child };

/** Spawns the bin with `args`, `env` over this process's environment (undefined removes a variable). */
export const startBin = (args: string[], env: Record<string, string | undefined>): Child => spawnBin(BIN, args, env);

/** An MCP client transport over a child's stdin and stdout, one JSON-RPC message a line. */
export function childTransport(child: ChildProcess): Transport {
  let buffer = '';
  const transport: Transport = {
    async start() {
      child.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          transport.onmessage?.(JSON.parse(line) as JSONRPCMessage);
        }
      });
    },
    async send(message) {
      child.stdin?.write(`${JSON.stringify(message)}\n`);
    },
    async close() {
      child.stdin?.end();
      transport.onclose?.();
    },
  };
  return transport;
}

/** The URL of a `--http` bin, once its ready line is on stderr. */
export async function httpUrl(run: Child): Promise<string> {
  const [, url = ''] = await waitFor(run.stderr, /serving Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
  return url;
}
