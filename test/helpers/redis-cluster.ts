import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { reservedPort, SERVER_PORTS } from './components.ts';
import { reapAtRunEnd } from './reap.ts';
import { NO_SYNC_DELAY } from './redis.ts';
import { fillReplicationStream } from './redis-lag.ts';

const run = promisify(execFile);

/** A throwaway Redis Cluster on loopback, for one test file. */
export interface TestRedisCluster {
  /** Every node's address (masters, then replicas), as ioredis's `Cluster` takes them. */
  readonly nodes: { host: string; port: number }[];
  /** Kills one master by PID (SIGKILL) and starts it again on its port, its data and its AOF. */
  restart(index: number, downMs?: number): Promise<void>;
  /** The index of the master that holds `key`'s slot (`'{sms}'` for a queue prefixed `{sms}`). */
  ownerOf(key: string): Promise<number>;
  /** The port of the master that holds `key`'s slot now, as a live node says. */
  masterPort(key: string): Promise<number>;
  /**
   * Makes the replica of the master holding `key`'s slot lag for real: SIGSTOPs it, then fills the
   * master's replication stream past the socket buffers (as redis-sentinel.ts's `lagReplica`), so
   * the writes that follow stay in the master's memory. Resolves with the replica's port (resume it).
   */
  lagReplicaOf(key: string): Promise<number>;
  /**
   * Stops the replica of the master holding `key`'s slot (SIGSTOP) and kills its replication link
   * on the master (CLIENT KILL TYPE replica): the master then counts no replica, yet the Cluster may
   * still promote this one, with what it had. Resolves with the replica's port (resume it).
   */
  cutReplicaOf(key: string): Promise<number>;
  /**
   * SIGKILLs the master holding `key`'s slot and waits until a live node names another master for
   * it (its replica promoted); resolves with the ms that took. `afterKill` runs once it is dead.
   */
  failover(key: string, options?: { afterKill?: () => void }): Promise<number>;
  /** Pauses (SIGSTOP) or resumes (SIGCONT) the node on `port`. */
  pause(port: number): void;
  resume(port: number): void;
  /** Stops every node by PID and removes their directories. */
  stop(): Promise<void>;
}

/** `replicas`: per master (0 or 1); `nodeTimeout`: cluster-node-timeout, ms (a failover takes about 1.5 of it). */
export interface ClusterOptions {
  readonly replicas?: number;
  readonly nodeTimeout?: number;
}

/**
 * Starts `masters` redis-servers in cluster mode (an append-only file each), and `replicas` more per
 * master, joins them with `redis-cli --cluster create`, and waits until every node says the
 * cluster is ok and every replica is in sync. Each node's cluster bus port is chosen too (below
 * the ephemeral range, as its client port).
 */
export async function startRedisCluster(masters = 3, options: ClusterOptions = {}): Promise<TestRedisCluster> {
  const replicas = options.replicas ?? 0;
  const nodes: { port: number; bus: number; dir: string; child?: ChildProcess }[] = [];
  const taken = new Set<number>();
  const port = async () => {
    let chosen = await reservedPort(...SERVER_PORTS);
    while (taken.has(chosen)) chosen = await reservedPort(...SERVER_PORTS);
    taken.add(chosen);
    return chosen;
  };
  for (let i = 0; i < masters * (1 + replicas); i++) {
    nodes.push({ port: await port(), bus: await port(), dir: mkdtempSync(join(tmpdir(), 'tm-redis-cluster-')) });
  }
  const launch = async (node: (typeof nodes)[number]) => {
    node.child = spawn(
      'redis-server',
      [
        '--port',
        String(node.port),
        '--cluster-port',
        String(node.bus),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(options.nodeTimeout ?? 2_000),
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'no',
        '--dir',
        node.dir,
        ...NO_SYNC_DELAY,
      ],
      { stdio: 'ignore' },
    );
    reapAtRunEnd(node.child, 'redis-server');
    const deadline = Date.now() + 10_000;
    while (!(await answers(node.port, 'PING', /PONG/))) {
      if (Date.now() > deadline || node.child.exitCode !== null)
        throw new Error(`redis-server did not start on ${node.port}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const kill = async (node: (typeof nodes)[number]) => {
    const child = node.child;
    if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid, 'SIGCONT');
    process.kill(child.pid, 'SIGKILL');
    await exited;
  };
  const stop = async () => {
    for (const node of nodes) {
      await kill(node);
      rmSync(node.dir, { recursive: true, force: true });
    }
  };
  const alive = () => nodes.filter((node) => node.child?.exitCode === null && node.child.signalCode === null);
  const clusterOk = async () => {
    for (const node of alive()) if (!(await answers(node.port, 'CLUSTER INFO', /cluster_state:ok/))) return false;
    return true;
  };
  const inSync = async () => {
    for (const node of alive())
      if (!(await answers(node.port, 'INFO replication', /role:master|master_link_status:up/))) return false;
    return true;
  };
  const waitOk = async () => {
    const deadline = Date.now() + 20_000;
    while (!(await clusterOk())) {
      if (Date.now() > deadline) throw new Error('the Redis Cluster did not reach cluster_state:ok');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  try {
    await Promise.all(nodes.map(launch));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((node) => `127.0.0.1:${node.port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
    await waitOk();
    const deadline = Date.now() + 20_000;
    while (!(await inSync())) {
      if (Date.now() > deadline) throw new Error('the replicas of the Redis Cluster did not come in sync');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes: nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
    restart: async (index, downMs = 0) => {
      const node = nodes[index];
      if (!node) throw new Error(`no node ${index}`);
      await kill(node);
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      await launch(node);
      await waitOk();
    },
    ownerOf: async (key) => {
      const owner = await masterPort(key);
      return nodes.findIndex((node) => node.port === owner);
    },
    masterPort,
    lagReplicaOf: async (key) => {
      const master = await masterPort(key);
      const replica = await replicaOf(master);
      pause(replica);
      // On a key of the same slot (the hash tag of `key`).
      await fillReplicationStream(master, `${key}:tm-lag`);
      return replica;
    },
    cutReplicaOf: async (key) => {
      const master = await masterPort(key);
      const replica = await replicaOf(master);
      pause(replica);
      await run('redis-cli', ['-p', String(master), 'CLIENT', 'KILL', 'TYPE', 'replica'], { timeout: 2_000 });
      return replica;
    },
    failover: async (key, failoverOptions = {}) => {
      const before = await masterPort(key);
      const node = nodes.find((each) => each.port === before);
      if (!node) throw new Error(`no node on ${before}`);
      const started = Date.now();
      await kill(node);
      failoverOptions.afterKill?.();
      const deadline = Date.now() + 30_000;
      while ((await masterPort(key).catch(() => before)) === before) {
        if (Date.now() > deadline) throw new Error('the Redis Cluster did not fail over');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return Date.now() - started;
    },
    pause,
    resume: (listen) => signal(listen, 'SIGCONT'),
    stop,
  };

  function signal(listen: number, name: NodeJS.Signals) {
    const pid = nodes.find((node) => node.port === listen)?.child?.pid;
    if (pid !== undefined) process.kill(pid, name);
  }
  function pause(listen: number) {
    signal(listen, 'SIGSTOP');
  }
  /** The port of the master of `key`'s slot, as the first live node that answers says. */
  async function masterPort(key: string): Promise<number> {
    for (const node of alive()) {
      try {
        const port = String(node.port);
        const slot = Number((await run('redis-cli', ['-p', port, 'CLUSTER', 'KEYSLOT', key])).stdout.trim());
        // redis-cli prints CLUSTER SLOTS one item a line: start, end, then the master's ip, port, id.
        const lines = (await run('redis-cli', ['-p', port, 'CLUSTER', 'SLOTS'], { timeout: 2_000 })).stdout
          .trim()
          .split('\n');
        for (let i = 0; i + 3 < lines.length; i++) {
          const [from, to, ip, owner] = lines.slice(i, i + 4).map((line) => line.trim());
          if (ip === '127.0.0.1' && slot >= Number(from) && slot <= Number(to)) return Number(owner);
        }
      } catch {
        // a node stopped or busy: ask the next
      }
    }
    throw new Error(`no live node names the master of ${key}'s slot`);
  }
  /** The port of a live replica of the master on `master`. */
  async function replicaOf(master: number): Promise<number> {
    for (const node of alive()) {
      if (await answers(node.port, 'INFO replication', new RegExp(`master_port:${master}\\b`))) return node.port;
    }
    throw new Error(`no replica of ${master}`);
  }
}

/** Whether `redis-cli -p port <command>` answers with something matching `expected`. */
async function answers(port: number, command: string, expected: RegExp): Promise<boolean> {
  try {
    const { stdout } = await run('redis-cli', ['-p', String(port), ...command.split(' ')], { timeout: 2_000 });
    return expected.test(stdout);
  } catch {
    return false;
  }
}
