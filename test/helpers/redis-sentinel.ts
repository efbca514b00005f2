import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { reservedPort, SERVER_PORTS } from './components.ts';
import { reapAtRunEnd } from './reap.ts';
import { NO_SYNC_DELAY } from './redis.ts';
import { fillReplicationStream } from './redis-lag.ts';

const run = promisify(execFile);

/** The master's name the sentinels watch, as ioredis's `name` option takes it. */
export const SENTINEL_MASTER = 'tm-primary';

/** A throwaway primary, one replica and three sentinels on loopback, for one test file. */
export interface TestRedisSentinel {
  /** ioredis options that reach the current primary through the sentinels. */
  readonly connection: {
    sentinels: { host: string; port: number }[];
    name: string;
    maxRetriesPerRequest: null;
  };
  /** The port of the server that is primary now, as the sentinels say. */
  primaryPort(): Promise<number>;
  /**
   * SIGKILLs the primary and waits until the sentinels name the replica as primary; resolves with
   * the ms that took. `afterKill` runs as soon as the primary is dead (e.g. to resume a replica).
   */
  failover(options?: { afterKill?: () => void }): Promise<number>;
  /** The port of the server that is a replica now (the one that is not the primary). */
  replicaPort(): Promise<number>;
  /**
   * Makes the replica lag for real: SIGSTOPs it, then fills the primary's replication stream past
   * what the kernel's socket buffers hold, so that the writes that follow stay in the primary's
   * memory: a primary killed then takes them with it. Resolves with the replica's port (resume it).
   */
  lagReplica(): Promise<number>;
  /**
   * Stops the replica (SIGSTOP) and kills its replication link on the primary (CLIENT KILL TYPE
   * replica): the primary then counts no replica, yet the sentinels may still promote this one,
   * with what it had. Resolves with the replica's port (resume it).
   */
  cutReplica(): Promise<number>;
  /** Pauses (SIGSTOP) or resumes (SIGCONT) the server on `port`: a replica stopped this way lags. */
  pause(port: number): void;
  resume(port: number): void;
  /** Stops every process by PID and removes their directories. */
  stop(): Promise<void>;
}

/** Starts a primary, a replica of it (each with an append-only file) and 3 sentinels (quorum 2). */
export async function startRedisSentinel(): Promise<TestRedisSentinel> {
  const dir = mkdtempSync(join(tmpdir(), 'tm-redis-sentinel-'));
  const children = new Map<number, ChildProcess>();
  const ports: number[] = [];
  const port = async () => {
    let chosen = await reservedPort(...SERVER_PORTS);
    while (ports.includes(chosen)) chosen = await reservedPort(...SERVER_PORTS);
    ports.push(chosen);
    return chosen;
  };
  const start = async (listen: number, args: string[]) => {
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    reapAtRunEnd(child, 'redis-server');
    children.set(listen, child);
    const deadline = Date.now() + 10_000;
    while (!(await answers(listen, ['PING'], /PONG/))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis did not start on ${listen}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const server = (listen: number, extra: string[] = []) => [
    '--port',
    String(listen),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'no',
    '--dir',
    mkdtempSync(join(dir, 'server-')),
    ...NO_SYNC_DELAY,
    ...extra,
  ];
  const stop = async () => {
    for (const child of children.values()) {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGCONT');
      process.kill(child.pid, 'SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const sentinels: number[] = [];
  const servers: number[] = [];
  try {
    const primary = await port();
    const replica = await port();
    servers.push(primary, replica);
    await start(primary, server(primary));
    await start(replica, server(replica, ['--replicaof', '127.0.0.1', String(primary)]));
    for (let i = 0; i < 3; i++) {
      const listen = await port();
      const config = join(dir, `sentinel-${i}.conf`);
      writeFileSync(
        config,
        [
          `port ${listen}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${primary} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER} 1000`,
          `sentinel failover-timeout ${SENTINEL_MASTER} 5000`,
          `sentinel parallel-syncs ${SENTINEL_MASTER} 1`,
          '',
        ].join('\n'),
      );
      await start(listen, [config, '--sentinel']);
      sentinels.push(listen);
    }
    // The replica in sync, and every sentinel seeing the replica and the other sentinels.
    const deadline = Date.now() + 20_000;
    while (
      !(await answers(replica, ['INFO', 'replication'], /master_link_status:up/)) ||
      !(await everySentinel(
        sentinels,
        /num-other-sentinels\s+2[\s\S]*num-slaves\s+1|num-slaves\s+1[\s\S]*num-other-sentinels\s+2/,
      ))
    ) {
      if (Date.now() > deadline) throw new Error('the sentinels did not see the replica and each other');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const primaryPort = async () => {
    const { stdout } = await run('redis-cli', [
      '-p',
      String(sentinels[0]),
      'SENTINEL',
      'get-master-addr-by-name',
      SENTINEL_MASTER,
    ]);
    return Number(stdout.trim().split('\n')[1]);
  };
  /** SIGSTOPs the server that is a replica now; resolves with its port and the primary's. */
  const stopReplica = async () => {
    const primary = await primaryPort();
    const replica = servers.find((listen) => listen !== primary) as number;
    const pid = children.get(replica)?.pid;
    if (pid === undefined) throw new Error(`no process for the replica on ${replica}`);
    process.kill(pid, 'SIGSTOP');
    return { primary, replica };
  };
  return {
    connection: {
      sentinels: sentinels.map((listen) => ({ host: '127.0.0.1', port: listen })),
      name: SENTINEL_MASTER,
      maxRetriesPerRequest: null,
    },
    primaryPort,
    failover: async (options = {}) => {
      const before = await primaryPort();
      const child = children.get(before);
      if (!child?.pid) throw new Error(`no process for the primary on ${before}`);
      const started = Date.now();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGCONT');
      process.kill(child.pid, 'SIGKILL');
      await exited;
      options.afterKill?.();
      const deadline = Date.now() + 30_000;
      while ((await primaryPort().catch(() => before)) === before) {
        if (Date.now() > deadline) throw new Error('the sentinels did not fail over');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return Date.now() - started;
    },
    replicaPort: async () => {
      const primary = await primaryPort();
      return servers.find((listen) => listen !== primary) as number;
    },
    lagReplica: async () => {
      const { primary, replica } = await stopReplica();
      await fillReplicationStream(primary, 'tm-lag');
      return replica;
    },
    cutReplica: async () => {
      const { primary, replica } = await stopReplica();
      await run('redis-cli', ['-p', String(primary), 'CLIENT', 'KILL', 'TYPE', 'replica'], { timeout: 2_000 });
      return replica;
    },
    pause: (listen) => {
      const pid = children.get(listen)?.pid;
      if (pid !== undefined) process.kill(pid, 'SIGSTOP');
    },
    resume: (listen) => {
      const pid = children.get(listen)?.pid;
      if (pid !== undefined) process.kill(pid, 'SIGCONT');
    },
    stop,
  };
}

/** Whether every sentinel's view of the master matches `expected`. */
async function everySentinel(sentinels: number[], expected: RegExp): Promise<boolean> {
  for (const listen of sentinels) {
    if (!(await answers(listen, ['SENTINEL', 'master', SENTINEL_MASTER], expected))) return false;
  }
  return true;
}

/** Whether `redis-cli -p port ...command` answers with something matching `expected`. */
async function answers(port: number, command: string[], expected: RegExp): Promise<boolean> {
  try {
    const { stdout } = await run('redis-cli', ['-p', String(port), ...command], { timeout: 2_000 });
    return expected.test(stdout);
  } catch {
    return false;
  }
}
