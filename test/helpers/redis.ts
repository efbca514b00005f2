import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { componentAvailable, reservedPort, SERVER_PORTS } from './components.ts';

/** A throwaway Redis server for one test file. */
export interface TestRedis {
  readonly port: number;
  readonly connection: { host: string; port: number; maxRetriesPerRequest: null };
  /** Kills the server by PID and removes its directory. */
  stop(): Promise<void>;
}

/** Whether `redis-server` is on the PATH. */
export const hasRedis = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * Whether the Redis tests run. Without `redis-server` they skip, with a line saying how to install
 * it; under `CI=true` they fail instead (CI must install it: `.ci/run` does, with apt).
 */
export function redisAvailable(): boolean {
  return componentAvailable(
    hasRedis,
    'redis-server is not on the PATH: install it with `apt-get install -y redis-server` to run the BullMQ tests',
  );
}

async function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** Starts `redis-server` on a free loopback port, with no persistence, and waits for PING. */
export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'tm-redis-'));
  const port = await reservedPort(...SERVER_PORTS);
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer PING on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    port,
    connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
    stop: async () => {
      if (child.exitCode === null && child.pid !== undefined) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        process.kill(child.pid, 'SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let counter = 0;
/** A queue name no other test uses. */
export function uniqueName(prefix = 'q'): string {
  counter++;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}
