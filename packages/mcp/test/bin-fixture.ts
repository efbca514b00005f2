/**
 * The built bin (packages/mcp/dist/main.js) as a subprocess, as the bin's test files drive it:
 * spawned with an environment, its output kept, its exit awaited; an MCP client transport over
 * its stdio; the `--http` URL read from its ready line. Needs `npm run build` first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The built bin. */
export const BIN = join(import.meta.dirname, '../dist/main.js');

/** A bearer token for `--http` (long enough to be accepted). */
export const TOKEN = 'mcp-test-token-0123456789abcdef';

export interface Child {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** The exit code (null when killed by a signal it did not handle). */
  readonly exit: Promise<number | null>;
}

/** Spawns the bin with `args`, `env` over this process's environment (undefined removes a variable). */
export function startBin(args: string[], env: Record<string, string | undefined>): Child {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const exit = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

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

/** Waits until `read()` matches `pattern`, and returns the match. */
export async function waitFor(read: () => string, pattern: RegExp): Promise<RegExpMatchArray> {
  for (let i = 0; i < 300; i++) {
    const match = read().match(pattern);
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never matched ${pattern}: ${read()}`);
}

/** The URL of a `--http` bin, once its ready line is on stderr. */
export async function httpUrl(run: Child): Promise<string> {
  const [, url = ''] = await waitFor(run.stderr, /serving Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
  return url;
}
