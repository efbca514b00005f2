/**
 * The three packages as npm would publish them: the SDK, `tenant-messaging-cli` and
 * `tenant-messaging-mcp`, packed into a folder and installed into fresh projects. The suite packs
 * them once and installs the SDK alone once ({@link sharedPackages}); each file that changes a
 * project works in its own copy ({@link copyProject}).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { npm, root } from './npm.js';

const run = promisify(execFile);

/** The workspaces beside the SDK, by folder. */
export const WORKSPACES = { cli: 'packages/cli', mcp: 'packages/mcp' } as const;

/** The tarballs of the three packages. */
export interface Tarballs {
  sdk: string;
  cli: string;
  mcp: string;
}

/** Packs the folder `cwd` (no scripts: the build is done) into `work`; returns the tarball's path. */
async function pack(cwd: string, work: string): Promise<string> {
  const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], cwd);
  const [info] = JSON.parse(stdout) as { filename: string }[];
  return join(work, info?.filename ?? '');
}

/**
 * Packs workspace `dir` as its prepack does (its dependency on the SDK pinned to the SDK's
 * version by scripts/workspace-manifest.mjs), from a copy of what it ships: the repository's own
 * package.json is never rewritten while other tests read it, and its dist is not rebuilt under
 * tests that run its bin.
 */
export async function packWorkspace(dir: string, work: string): Promise<string> {
  const source = join(root, dir);
  const { stdout } = await npm(['pack', '--ignore-scripts', '--dry-run', '--json'], source);
  const [info] = JSON.parse(stdout) as { files: { path: string }[] }[];
  const copy = await mkdtemp(join(work, 'workspace-'));
  for (const { path } of info?.files ?? []) await cp(join(source, path), join(copy, path), { recursive: true });
  await run(process.execPath, [join(root, 'scripts', 'workspace-manifest.mjs'), 'pin'], { cwd: copy });
  return pack(copy, work);
}

/** Packs the SDK and both workspaces into `work`. */
export async function packAll(work: string): Promise<Tarballs> {
  // One build before any pack: a build's clean step under a pack would ship a half-built dist.
  const built = [
    join(root, 'dist', 'index.js'),
    ...Object.values(WORKSPACES).map((dir) => join(root, dir, 'dist', 'main.js')),
  ];
  if (!built.every((file) => existsSync(file))) await npm(['run', 'build'], root);
  const [sdk, cli, mcp] = await Promise.all([
    pack(root, work),
    packWorkspace(WORKSPACES.cli, work),
    packWorkspace(WORKSPACES.mcp, work),
  ]);
  return { sdk, cli, mcp };
}

/**
 * Installs `tarballs` into a new project `work/<name>` made by `npm init -y` (npm 11 writes
 * `"type": "commonjs"`), from npm's cache where it can. Returns the project's path.
 */
export async function installInto(work: string, name: string, tarballs: readonly string[]): Promise<string> {
  const project = join(work, name);
  await mkdir(project);
  await npm(['init', '-y'], project);
  await npm(['install', ...tarballs, '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], project);
  return project;
}

/** The three tarballs, and the SDK installed alone in a project made by `npm init -y`. */
export interface SharedPackages extends Tarballs {
  /** Read it, or work in a {@link copyProject}: other files use it at the same time. */
  readonly sdkProject: string;
}

/**
 * The packages of this run, packed and installed once for every file that asks: the first one
 * packs them while the others wait (a lock folder in the run's folder, test/setup/pack-dir.ts).
 * Without that folder (a config without the setup) the caller packs its own.
 */
export async function sharedPackages(): Promise<SharedPackages> {
  const dir = inject('packDir') ?? (await mkdtemp(join(tmpdir(), 'tm-packed-')));
  const done = join(dir, 'packages.json');
  const failed = join(dir, 'packages.failed');
  try {
    await mkdir(join(dir, 'packages.lock'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another file packs them: wait for its result (a pack and an install take seconds).
    for (const deadline = Date.now() + 180_000; Date.now() < deadline; await sleep(100)) {
      if (existsSync(done)) return JSON.parse(await readFile(done, 'utf8')) as SharedPackages;
      if (existsSync(failed)) throw new Error(`packing failed in another file: ${await readFile(failed, 'utf8')}`);
    }
    throw new Error('packing in another file took over 180 s');
  }
  try {
    const tarballs = await packAll(dir);
    const packages: SharedPackages = { ...tarballs, sdkProject: await installInto(dir, 'sdk-alone', [tarballs.sdk]) };
    await writeWhole(done, JSON.stringify(packages));
    return packages;
  } catch (error) {
    await writeWhole(failed, String(error));
    throw error;
  }
}

/** Writes `file` whole or not at all (a waiter that reads it never sees it half written). */
async function writeWhole(file: string, text: string): Promise<void> {
  await writeFile(`${file}.part`, text);
  await rename(`${file}.part`, file);
}

/**
 * A copy of `project` at `dest` that a test may change: its files hard-linked (fast), its
 * package.json a file of its own (npm rewrites it in place, which would change the original).
 */
export async function copyProject(project: string, dest: string): Promise<string> {
  await run('cp', ['-al', project, dest]);
  const manifest = join(dest, 'package.json');
  await rm(manifest);
  await copyFile(join(project, 'package.json'), manifest);
  return dest;
}
