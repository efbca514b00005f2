import { createServer } from 'node:net';

/**
 * Whether the tests that need a real component (Redis, PostgreSQL) run. Without it they skip,
 * with `hint` (how to install it); under `CI=true` they fail instead: `.ci/run` installs them.
 */
export function componentAvailable(present: boolean, hint: string): boolean {
  if (present) return true;
  if (process.env['CI'] === 'true') throw new Error(`${hint} (they may not skip under CI=true)`);
  console.warn(`SKIPPED: ${hint}`);
  return false;
}

/**
 * A port in [from, to) that is free now, below the kernel's ephemeral range (32768 and up on
 * Linux), so that no server listening on port 0 is given it later. Why it matters: a test that
 * needs a port where nothing listens (a refused connection), or a server that binds a second
 * after its port was chosen (PostgreSQL), must not find another test's server there, and
 * ephemeral ports are handed out again as soon as they are closed.
 */
export async function reservedPort(from: number, to: number): Promise<number> {
  [from, to] = workerSlice(from, to);
  for (let tries = 0; tries < 50; tries++) {
    const port = from + Math.floor(Math.random() * (to - from));
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in [${from}, ${to}) after 50 tries`);
}

/** Ports for a test's "nothing listens here" (refused connections). */
export const REFUSED_PORTS = [20_000, 26_000] as const;
/** Ports for the servers the tests start as processes (Redis, PostgreSQL). */
export const SERVER_PORTS = [26_000, 32_000] as const;

/** Vitest's workers at once, at most (vitest.config.ts: 6 for the suite, 4 for the fleet files). */
const WORKER_SLICES = 8;

/**
 * This worker's own part of [from, to): a port is checked free when it is chosen, not bound
 * until its server starts, and two workers that chose the same port in that gap (a cluster
 * chooses its 18 before starting any) made one server fail to start. Each vitest worker
 * (VITEST_POOL_ID, inherited by the processes it spawns) chooses in a slice of its own; outside
 * vitest, in the whole range.
 */
function workerSlice(from: number, to: number): [number, number] {
  const id = Number(process.env['VITEST_POOL_ID']);
  if (!Number.isInteger(id) || id < 1) return [from, to];
  const size = Math.floor((to - from) / WORKER_SLICES);
  const start = from + ((id - 1) % WORKER_SLICES) * size;
  return [start, start + size];
}
