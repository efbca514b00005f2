import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { componentAvailable, reservedPort, SERVER_PORTS } from './components.ts';
import { reapAtRunEnd } from './reap.ts';

/** A throwaway Redis server for one test file. */
export interface TestRedis {
  readonly port: number;
  readonly connection: { host: string; port: number; maxRetriesPerRequest: null };
  /** Kills the server (SIGKILL) and starts it again on the same port and directory, after `downMs`. */
  restart(downMs?: number): Promise<void>;
  /** Stops the server in its tracks (SIGSTOP): connections stay open, nothing answers. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
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

/** Whether a Redis on `port` (loopback) answers PING now: a test waits on it to see a server down or back. */
export function answersPing(port: number): Promise<boolean> {
  return ping(port);
}

/** How a test's Redis keeps its data. */
export interface RedisSettings {
  /**
   * `aof`: an append-only file, as the SDK requires of a production Redis (it refuses one without);
   * `none`: nothing kept, so a restart forgets everything (the queue then needs allowUnsafeDatastore).
   * @default 'aof'
   */
  persistence?: 'aof' | 'none';
  /** More `redis-server` arguments, e.g. `['--maxmemory', '2mb']`. */
  args?: string[];
}

/**
 * A replica's first sync starts at once: Redis 7 otherwise waits 5 s (`repl-diskless-sync-delay`)
 * for more replicas to sync with the same snapshot, and every test or bench with a replica
 * waited it out.
 */
export const NO_SYNC_DELAY = ['--repl-diskless-sync-delay', '0'];

/**
 * Starts `redis-server` on a free loopback port (an append-only file by default, flushed by the
 * OS: it survives the server's SIGKILL), and waits for PING.
 */
export async function startRedis(settings: RedisSettings = {}): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'tm-redis-'));
  const port = await reservedPort(...SERVER_PORTS);
  const persistence =
    settings.persistence === 'none'
      ? ['--save', '', '--appendonly', 'no']
      : ['--save', '', '--appendonly', 'yes', '--appendfsync', 'no'];
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    ...persistence,
    '--dir',
    dir,
    ...NO_SYNC_DELAY,
    ...(settings.args ?? []),
  ];
  let child: ChildProcess;
  const launch = async () => {
    child = spawn('redis-server', args, { stdio: 'ignore' });
    reapAtRunEnd(child, 'redis-server');
    const deadline = Date.now() + 10_000;
    while (!(await ping(port))) {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`redis-server did not answer PING on port ${port}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGCONT'); // a paused server must be able to die
      process.kill(child.pid, 'SIGKILL');
      await exited;
    }
  };
  await launch();
  return {
    port,
    connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
    restart: async (downMs = 0) => {
      await kill();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      await launch();
    },
    pause: () => child.pid !== undefined && process.kill(child.pid, 'SIGSTOP'),
    resume: () => child.pid !== undefined && process.kill(child.pid, 'SIGCONT'),
    stop: async () => {
      await kill();
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
