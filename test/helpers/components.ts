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

/** A free TCP port on 127.0.0.1, for a server a test starts. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
