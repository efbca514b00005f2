/**
 * A built bin as a subprocess, as the tests of both bins drive it: spawned with an environment
 * over this process's, its output kept, its exit awaited, killed if it hangs.
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** A running bin. */
export interface Child {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** The exit code (null when killed by a signal it did not handle). */
  readonly exit: Promise<number | null>;
  /** Once it exited: the signal that killed it, if one did (a signal before the bin's handlers). */
  readonly killedBy: () => NodeJS.Signals | null;
}

/**
 * Spawns `bin` (a built .js file) with `args`, `env` over this process's environment (undefined
 * removes a variable); stdin a pipe (an MCP client's transport) or closed.
 */
export function spawnBin(
  bin: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  stdin: 'pipe' | 'ignore' = 'pipe',
): Child {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...env },
    stdio: [stdin, 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  // A hang detector, not a measure.
  const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  let killedBy: NodeJS.Signals | null = null;
  const exit = new Promise<number | null>((resolve) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      killedBy = signal;
      resolve(code);
    }),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exit, killedBy: () => killedBy };
}

/**
 * Waits until `read()` matches `pattern` (polled every 20 ms), and returns the match. Throws past
 * 30 s (a hang detector at the hooks' timeout scale, not a measure: a loaded machine takes
 * seconds to start a bin).
 */
export async function waitFor(read: () => string, pattern: RegExp): Promise<RegExpMatchArray> {
  for (let i = 0; i < 1_500; i++) {
    const match = read().match(pattern);
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never matched ${pattern}: ${read()}`);
}
