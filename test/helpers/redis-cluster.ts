import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { reservedPort, SERVER_PORTS } from './components.ts';

const run = promisify(execFile);

/** A throwaway Redis Cluster of masters on loopback, for one test file. */
export interface TestRedisCluster {
  /** The masters' addresses, as ioredis's `Cluster` takes them. */
  readonly nodes: { host: string; port: number }[];
  /** Kills one master by PID (SIGKILL) and starts it again on its port, its data and its AOF. */
  restart(index: number, downMs?: number): Promise<void>;
  /** The index of the master that holds `key`'s slot (`'{sms}'` for a queue prefixed `{sms}`). */
  ownerOf(key: string): Promise<number>;
  /** Stops every master by PID and removes their directories. */
  stop(): Promise<void>;
}

/**
 * Starts `masters` redis-servers in cluster mode (an append-only file each), joins them with
 * `redis-cli --cluster create` (no replicas), and waits until every node says the cluster is ok.
 * Each node's cluster bus port is chosen too (below the ephemeral range, as its client port).
 */
export async function startRedisCluster(masters = 3): Promise<TestRedisCluster> {
  const nodes: { port: number; bus: number; dir: string; child?: ChildProcess }[] = [];
  for (let i = 0; i < masters; i++) {
    const port = await reservedPort(...SERVER_PORTS);
    let bus = await reservedPort(...SERVER_PORTS);
    while (bus === port) bus = await reservedPort(...SERVER_PORTS);
    nodes.push({ port, bus, dir: mkdtempSync(join(tmpdir(), 'tm-redis-cluster-')) });
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
        '2000',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'no',
        '--dir',
        node.dir,
      ],
      { stdio: 'ignore' },
    );
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
    process.kill(child.pid, 'SIGKILL');
    await exited;
  };
  const stop = async () => {
    for (const node of nodes) {
      await kill(node);
      rmSync(node.dir, { recursive: true, force: true });
    }
  };
  const clusterOk = async () => {
    for (const node of nodes) if (!(await answers(node.port, 'CLUSTER INFO', /cluster_state:ok/))) return false;
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
      '0',
      '--cluster-yes',
    ]);
    await waitOk();
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
      const port = String((nodes[0] as (typeof nodes)[number]).port);
      const slot = Number((await run('redis-cli', ['-p', port, 'CLUSTER', 'KEYSLOT', key])).stdout.trim());
      // redis-cli prints CLUSTER SLOTS one item a line: start, end, then the master's ip, port, id.
      const lines = (await run('redis-cli', ['-p', port, 'CLUSTER', 'SLOTS'])).stdout.trim().split('\n');
      for (let i = 0; i + 3 < lines.length; i++) {
        const [from, to, ip, owner] = lines.slice(i, i + 4).map((line) => line.trim());
        if (ip !== '127.0.0.1' || !(slot >= Number(from) && slot <= Number(to))) continue;
        const index = nodes.findIndex((node) => String(node.port) === owner);
        if (index >= 0) return index;
      }
      throw new Error(`no master holds slot ${slot}`);
    },
    stop,
  };
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
