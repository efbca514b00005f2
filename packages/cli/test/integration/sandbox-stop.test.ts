/**
 * `tenant-messaging sandbox`'s refusals and its stop: a port in use or a bad `--port` is one line
 * of usage error, exit 2, no stack; SIGTERM answers a request in flight before the process exits
 * (it cut every socket at once: a client mid-send got a reset). The built bin.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { halfSent } from '../../../../test/helpers/half-sent.js';

const bin = join(import.meta.dirname, '../../dist/main.js');

beforeAll(() => {
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
});

/** The sandbox command with `args`; its output so far, once `until` appears in it, and its exit code. */
function sandbox(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [bin, 'sandbox', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const printed = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const look = () => (pattern.test(stdout) ? resolve(stdout) : undefined);
      child.stdout?.on('data', look);
      look();
      void exited.then(() => reject(new Error(`exited before printing ${pattern}: ${stdout}${stderr}`)));
    });
  return { child, exited, printed, stderr: () => stderr };
}

/** Node's own warning on a system Node older than the bin's floor: not the command's output. */
const own = (stderr: string) => stderr.replace(/^tenant-messaging: Node\.js .* or later\.\n/m, '');

describe('tenant-messaging sandbox, refused', () => {
  it('a port in use: one line naming the port and the way out, exit 2, no stack', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = sandbox(['--port', String(port)]);
      expect(await run.exited).toBe(2);
      const lines = own(run.stderr()).trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^tenant-messaging sandbox: --port ${port}: the port is in use on 127\\.0\\.0\\.1.*--port 0 for a free one\\. See`,
        ),
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it.each(['abc', '0x50', '70000', ''])('--port %j: one line, prefixed, exit 2', async (port) => {
    const run = sandbox(['--port', port]);
    expect(await run.exited).toBe(2);
    const lines = own(run.stderr()).trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^tenant-messaging sandbox: --port must be a port number from 0 to 65535/);
  });
});

describe('tenant-messaging sandbox, stopped with a request in flight', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s: the request is answered, then the process exits 0', async (signal) => {
    const run = sandbox(['--port', '0']);
    const printed = await run.printed(/Press Ctrl-C/);
    const base = /TENANT_MESSAGING_BASE_URL=(\S+\/t\/acme)/.exec(printed)?.[1] as string;
    const { answer, finish } = await halfSent(base);
    run.child.kill(signal);
    await run.printed(new RegExp(`${signal}: stopping the sandbox`));
    finish();
    expect(await answer).toBe(201);
    expect(await run.exited).toBe(0);
  });
});
