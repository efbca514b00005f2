import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { componentAvailable, reservedPort, SERVER_PORTS } from './components.ts';

/** A throwaway PostgreSQL cluster for one test file. */
export interface TestPostgres {
  readonly port: number;
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` (trust authentication: loopback only). */
  readonly url: string;
  /** Stops the server (fast shutdown: every connection is ended) and starts it again on the same port and data, after `downMs`. */
  restart(downMs?: number): Promise<void>;
  /**
   * Freezes the server in its tracks (SIGSTOP to the postmaster and every backend): connections
   * stay open, nothing answers, new connections wait in the listen queue; its clock runs on.
   */
  pause(): void;
  /** Lets a paused server go on (SIGCONT to the same processes, the postmaster last). */
  resume(): void;
  /** Stops the server by PID (fast shutdown, then SIGKILL) and removes its directory. */
  stop(): Promise<void>;
}

/** The processes whose parent is `pid` (Linux's /proc): a cluster's backends and workers. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The fields after the command's closing parenthesis: state, then the parent's pid.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

/** The directory holding `initdb` and `pg_ctl`: on the PATH, or Debian's /usr/lib/postgresql/<major>/bin. */
function binDir(): string | undefined {
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (which) return join(which, '..');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const major of majors) if (existsSync(join(root, major, 'bin', 'initdb'))) return join(root, major, 'bin');
  return undefined;
}

const BIN = binDir();
/** util-linux's runuser, in an sbin folder that a PATH without them (a CI's) does not name. */
const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser'].find((path) => existsSync(path)) ?? 'runuser';
/** initdb refuses to run as root: as root, the cluster belongs to the `postgres` user. */
const AS_ROOT = process.getuid?.() === 0;

/**
 * Whether the PostgreSQL tests run. Without the server binaries they skip, with a line saying how
 * to install them; under `CI=true` they fail instead (`.ci/run` installs Debian's `postgresql`).
 */
export function postgresAvailable(): boolean {
  return componentAvailable(
    BIN !== undefined && (!AS_ROOT || spawnSync('id', ['postgres'], { stdio: 'ignore' }).status === 0),
    'PostgreSQL server binaries (initdb, pg_ctl) were not found: install them with `apt-get install -y postgresql` to run the PostgreSQL tests',
  );
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
function run(binary: string, args: string[]): { status: number | null; output: string } {
  const path = join(BIN as string, binary);
  const [command, argv] = AS_ROOT ? [RUNUSER, ['-u', 'postgres', '--', path, ...args]] : [path, args];
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  // A command that could not start has no output of its own: its error says why.
  if (result.error) return { status: null, output: `${command}: ${result.error.message}` };
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A folder the `postgres` user owns (initdb refuses root, and the server wants its data its own). */
function ownedFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (AS_ROOT) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim();
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  return dir;
}

/**
 * The run's pristine cluster, made by initdb once and copied for every cluster: initdb costs about
 * a second of CPU, a copy a tenth of that, and the suite starts a dozen. Made in the run's folder
 * (test/setup/postgres-template.ts) by the first file that asks, the others waiting for it (a lock
 * folder, as test/helpers/pack.ts does); without that setup, in a folder of this process's own.
 * Never started itself.
 */
let template: Promise<string> | undefined;
function templateCluster(): Promise<string> {
  template ??= makeTemplate(runTemplateDir());
  return template;
}

/** The run's folder, when vitest runs this (the bench imports these helpers too). */
function runTemplateDir(): string | undefined {
  try {
    return inject('pgTemplateDir');
  } catch {
    return undefined;
  }
}

async function makeTemplate(runDir: string | undefined): Promise<string> {
  const dir = runDir ?? ownedFolder('tm-pg-template-');
  if (!runDir) process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const data = join(dir, 'data');
  const [ready, failed] = [join(dir, 'ready'), join(dir, 'failed')];
  try {
    mkdirSync(join(dir, 'lock'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another file makes it: wait for its result (initdb takes about a second).
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(50)) {
      if (existsSync(ready)) return data;
      if (existsSync(failed)) throw new Error(`initdb failed in another file:\n${readFileSync(failed, 'utf8')}`);
    }
    throw new Error('the template cluster was not made within 60 s');
  }
  const init = run('initdb', [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
    '-E',
    'UTF8',
    '--no-instructions',
  ]);
  if (init.status !== 0) {
    writeFileSync(failed, init.output);
    throw new Error(`initdb failed:\n${init.output}`);
  }
  writeFileSync(ready, '');
  return data;
}

/** What a throwaway cluster is started with beyond the defaults. */
export interface PostgresOptions {
  /** Server settings, each passed as `-c name=value` (the bench's `shared_preload_libraries`, for one). */
  readonly settings?: Readonly<Record<string, string>>;
}

/**
 * Starts a throwaway cluster on a free loopback port (a copy of this process's initdb, then the
 * server itself as a child of this process): no fsync, trust authentication, its socket in its
 * own directory.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<TestPostgres> {
  const source = await templateCluster();
  const dir = ownedFolder('tm-pg-');
  const data = join(dir, 'data');
  // cp -a keeps the files' owner (the postgres user) and the data folder's 0700.
  const copy = spawnSync('cp', ['-a', source, data], { encoding: 'utf8' });
  if (copy.status !== 0) throw new Error(`copying the template cluster failed:\n${copy.stderr}`);
  const port = await reservedPort(...SERVER_PORTS);
  const postgres = join(BIN as string, 'postgres');
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
    ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];
  const [command, argv] = AS_ROOT ? [RUNUSER, ['-u', 'postgres', '--', postgres, ...args]] : [postgres, args];
  const pidFile = join(data, 'postmaster.pid');
  let child: ChildProcess;
  let pid = 0;
  const launch = async () => {
    child = spawn(command, argv, { stdio: 'ignore' });
    const deadline = Date.now() + 20_000;
    // Ready when the pid file's status line says so (what pg_ctl -w waits for).
    while (!(existsSync(pidFile) && readFileSync(pidFile, 'utf8').includes('ready'))) {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`postgres did not start on port ${port}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  };
  let paused: number[] = [];
  const signal = (pids: readonly number[], name: NodeJS.Signals) => {
    for (const target of pids) {
      try {
        process.kill(target, name);
      } catch {
        // A backend that ended meanwhile.
      }
    }
  };
  const shutdown = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (paused.length > 0) signal([...paused, ...(child.pid === undefined ? [] : [child.pid])], 'SIGCONT'); // a frozen server must be able to stop
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // SIGINT is PostgreSQL's fast shutdown; SIGKILL if it takes more than 5 s.
    process.kill(pid, 'SIGINT');
    const timer = setTimeout(() => process.kill(pid, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  await launch();
  return {
    port,
    pause: () => {
      // The postmaster first: it then starts no backend that the list below would miss.
      signal([pid], 'SIGSTOP');
      paused = [pid, ...childrenOf(pid)];
      signal(paused.slice(1), 'SIGSTOP');
    },
    resume: () => {
      signal(paused.slice(1), 'SIGCONT');
      signal([pid], 'SIGCONT');
      // runuser (as root) stops itself when its child stops, as su does: it must go on too.
      if (child.pid !== undefined && child.pid !== pid) signal([child.pid], 'SIGCONT');
      paused = [];
    },
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    restart: async (downMs = 0) => {
      await shutdown();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      await launch();
    },
    stop: async () => {
      await shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A cluster with BullMQ's tables created, as BullMQ's docs say to: `runMigrations` once. bullmq
 * and pg are loaded here only (the bench imports this file too).
 */
export async function startPostgresWithBullmq(options: PostgresOptions = {}): Promise<TestPostgres> {
  const db = await startPostgres(options);
  const { default: pg } = await import('pg');
  const { runMigrations } = await import('bullmq');
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  const client = await pool.connect();
  try {
    await runMigrations(client);
  } finally {
    client.release();
    await pool.end();
  }
  return db;
}
