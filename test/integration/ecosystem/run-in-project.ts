/**
 * How test/integration/ecosystem/runtimes.test.ts runs the packed SDK's programs: a process in the project's
 * folder, in its own process group, bounded; and a Worker served by `wrangler dev` on loopback.
 */
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { root } from '../../helpers/npm.js';

/** One step of a program's run, as it prints it. */
export interface StepResult {
  ok: boolean;
  value?: unknown;
  error?: string;
}

/**
 * The compatibility dates a Worker is tested at: today's, and two older ones a Worker may still
 * run at (a Worker keeps its date until its owner moves it). The oldest is the one docs/runtimes.md
 * names.
 */
export const COMPATIBILITY_DATES = ['2026-11-01', '2025-06-01', '2024-09-23'] as const;
/** With the `nodejs_compat` flag, and with no flag at all. */
export const COMPATIBILITY_FLAGS = ['nodejs_compat', 'no compatibility flags'] as const;

/** The file name of the Worker's settings at `date` with `flags`. */
export const wranglerConfig = (date: string, flags: (typeof COMPATIBILITY_FLAGS)[number]) =>
  `wrangler.${date}${flags === 'nodejs_compat' ? '.nodejs_compat' : ''}.toml`;

/** The Worker's settings, at each date, with the `nodejs_compat` flag and without. */
export const WRANGLER_CONFIGS: Record<string, string> = Object.fromEntries(
  COMPATIBILITY_DATES.flatMap((date) =>
    COMPATIBILITY_FLAGS.map((flags) => [
      wranglerConfig(date, flags),
      `name = "ecosystem"\nmain = "worker.mjs"\ncompatibility_date = "${date}"\n${
        flags === 'nodejs_compat' ? 'compatibility_flags = ["nodejs_compat"]\n' : ''
      }`,
    ]),
  ),
);

/** Serves worker.mjs with `wrangler dev` on loopback, asks it once, and returns the program's steps. */
export async function runWorker(
  cwd: string,
  env: Record<string, string>,
  config: string,
): Promise<Record<string, StepResult>> {
  const vars = Object.entries({ ...env, NO_FILE_SYSTEM: '1' }).flatMap(([key, value]) => ['--var', `${key}:${value}`]);
  const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  let steps: Record<string, StepResult> | undefined;
  let failure: unknown;
  const { out, err } = await runFor(
    cwd,
    [process.execPath, wrangler],
    ['dev', '--config', config, '--ip', '127.0.0.1', '--port', '0', '--show-interactive-dev-session=false', ...vars],
    { WRANGLER_SEND_METRICS: 'false' },
    (output) => {
      const ready = /Ready on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!ready) return false;
      return fetch(ready[1] as string)
        .then((response) => response.json() as Promise<Record<string, StepResult>>)
        .then((result) => {
          steps = result;
        })
        .catch((error: unknown) => {
          failure = error;
        });
    },
  );
  if (!steps) throw new Error(`the Worker gave no result (${String(failure)}):\n${out}\n${err}`.slice(0, 4000));
  return steps;
}

/**
 * Runs `command` with `args` in `cwd` (its own process group, killed whole at the end),
 * and hands its output so far to `until` after each chunk: a promise from `until` ends the run
 * once it settles. Bounded to 60 s. Its temporary files go in a folder of `cwd`, removed with the
 * project: a runtime killed at the end cannot remove its own (`wrangler dev`'s miniflare folders).
 */
export async function runFor(
  cwd: string,
  command: readonly string[],
  args: readonly string[],
  extraEnv: Record<string, string>,
  until: (output: string) => false | Promise<void>,
): Promise<{ out: string; err: string; code: number | null }> {
  const [file, ...before] = command as [string, ...string[]];
  const scratch = await mkdtemp(join(cwd, '.tmp-'));
  const child = spawn(file, [...before, ...args], {
    cwd,
    env: { ...process.env, ...extraEnv, NO_COLOR: '1', TMPDIR: scratch },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  let asked: Promise<void> | undefined;
  const killAll = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const onOutput = () => {
    asked ??= until(out + err) || undefined;
    void asked?.finally(killAll);
  };
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk;
    onOutput();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk;
    onOutput();
  });
  const timer = setTimeout(killAll, 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  await asked;
  return { out, err, code };
}
