/**
 * The processes of the fleet test (fleet-run.ts): its datastore, the sandbox in a process of its
 * own (fleet-sandbox.mjs) and the worker processes (crash-worker.mjs), started, killed and, at
 * the end, every one still running killed.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createPostgresBackend, Queue } from 'bullmq';
import type { QueueConnection } from 'tenant-messaging/bullmq';
import type { TestPostgres } from '../../../helpers/postgres.js';
import { startRedis, type TestRedis } from '../../../helpers/redis.js';
import { type BACKENDS, rawQueues, startPostgresWithBullmq } from '../fixture.js';

const workerScript = fileURLToPath(new URL('../crash-worker.mjs', import.meta.url));
const sandboxScript = fileURLToPath(new URL('../fleet-sandbox.mjs', import.meta.url));

/** What the sandbox process counted. */
export interface SandboxStats {
  sends: number;
  requests: number;
  polls: number;
  sendsPerSecond: number;
  busiestSecond: number;
  requestsDuringSends: number;
  rejected: number;
  stored: Record<string, number>;
}

/** The sandbox process: its address, and a call for its figures. */
export interface SandboxChild {
  url: string;
  key: string;
  stats(): Promise<SandboxStats>;
}

/** The queue's datastore for one run: what the workers are told, and what the test connects with. */
export interface Store {
  env: Record<string, string>;
  connection: QueueConnection;
  raw(name: string): Queue;
  stop(): Promise<void>;
}

export async function startStore(backend: (typeof BACKENDS)[number][0]): Promise<Store> {
  if (backend === 'redis') {
    const redis: TestRedis = await startRedis();
    const queues = rawQueues((name) => new Queue(name, { connection: redis.connection }));
    return {
      env: { REDIS_PORT: String(redis.port) },
      connection: redis.connection,
      raw: queues.raw,
      stop: async () => {
        await queues.closeAll();
        await redis.stop();
      },
    };
  }
  const db: TestPostgres = await startPostgresWithBullmq();
  const postgres = { connectionString: db.url, max: 4 };
  const queues = rawQueues(
    (name) => new Queue(name, { connection: postgres }, createPostgresBackend) as unknown as Queue,
  );
  return {
    env: { PG_URL: db.url },
    connection: { postgres },
    raw: queues.raw,
    stop: async () => {
      await queues.closeAll();
      await db.stop();
    },
  };
}

/** The child processes of one run: `killAll()` kills each one started that still runs. */
export class FleetProcesses {
  private readonly children = new Set<ChildProcess>();

  /** Starts the sandbox process with `env` (its limit, faults and seed); resolves once it listens. */
  async startSandbox(env: Record<string, string>): Promise<SandboxChild> {
    const child = this.fork(sandboxScript, env, ['ignore', 'inherit', 'inherit', 'ipc']);
    const pending = new Map<number, (value: SandboxStats) => void>();
    let next = 0;
    const ready = await new Promise<{ url: string; key: string }>((resolve, reject) => {
      child.on('message', (message: { ready?: { url: string; key: string }; id?: number; result?: SandboxStats }) => {
        if (message.ready) resolve(message.ready);
        else if (message.id !== undefined && message.result) pending.get(message.id)?.(message.result);
      });
      child.once('exit', (code) => reject(new Error(`the sandbox process exited (${code}) before it was ready`)));
    });
    return {
      ...ready,
      stats: () =>
        new Promise((resolve) => {
          const id = next++;
          pending.set(id, resolve);
          child.send({ id, cmd: 'stats' });
        }),
    };
  }

  /** Starts a worker process with `env` (its queue, datastore, sandbox and settings); resolves once it is ready. */
  async startWorker(env: Record<string, string>): Promise<ChildProcess> {
    const child = this.fork(workerScript, env, ['ignore', 'ignore', 'inherit', 'ipc']);
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the worker process exited (${code}) before it was ready`)));
    });
    return child;
  }

  /** Kills `child` with SIGKILL inside a send: its next POST reached the service, its answer never returns. */
  async killInSend(child: ChildProcess): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let onMessage: (message: unknown) => void = () => {};
    const inSend = new Promise<void>((resolve, reject) => {
      // A hang detector, not a measure: a busy machine may take seconds to make the next send.
      timer = setTimeout(() => reject(new Error('the worker made no send within 30 s')), 30_000);
      onMessage = (message) => {
        if (message === 'in-send') resolve();
      };
      child.on('message', onMessage);
    });
    child.send('hold-next-send');
    try {
      await inSend;
    } finally {
      clearTimeout(timer);
      child.off('message', onMessage);
    }
    await this.kill(child, 'SIGKILL');
  }

  /** Sends `signal` to `child` and resolves once it exited. */
  async kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
    this.children.delete(child);
  }

  /** Kills every process of the run still running. */
  async killAll(): Promise<void> {
    await Promise.all([...this.children].map((child) => this.kill(child, 'SIGKILL')));
  }

  private fork(
    script: string,
    env: Record<string, string>,
    stdio: ['ignore', 'inherit' | 'ignore', 'inherit', 'ipc'],
  ): ChildProcess {
    const child = fork(script, { env: { ...process.env, ...env }, execPath: process.execPath, stdio });
    this.children.add(child);
    return child;
  }
}
