/**
 * The three packages as npm would publish them: the SDK, `tenant-messaging-cli` and
 * `tenant-messaging-mcp`, packed into a folder and installed together into a fresh project.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
  if (!existsSync(join(source, 'dist', 'main.js'))) await npm(['run', 'build'], root);
  const { stdout } = await npm(['pack', '--ignore-scripts', '--dry-run', '--json'], source);
  const [info] = JSON.parse(stdout) as { files: { path: string }[] }[];
  const copy = await mkdtemp(join(work, 'workspace-'));
  for (const { path } of info?.files ?? []) await cp(join(source, path), join(copy, path), { recursive: true });
  await run(process.execPath, [join(root, 'scripts', 'workspace-manifest.mjs'), 'pin'], { cwd: copy });
  return pack(copy, work);
}

/** Packs the SDK and both workspaces into `work`. */
export async function packAll(work: string): Promise<Tarballs> {
  if (!existsSync(join(root, 'dist', 'index.js'))) await npm(['run', 'build'], root);
  const [sdk, cli, mcp] = await Promise.all([
    pack(root, work),
    packWorkspace(WORKSPACES.cli, work),
    packWorkspace(WORKSPACES.mcp, work),
  ]);
  return { sdk, cli, mcp };
}

/**
 * Installs `tarballs` into a new project `work/<name>` made as `npm init -y` makes one (npm 11:
 * `"type": "commonjs"`), from npm's cache where it can. Returns the project's path.
 */
export async function installInto(work: string, name: string, tarballs: readonly string[]): Promise<string> {
  const project = join(work, name);
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'commonjs' }));
  await npm(['install', ...tarballs, '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], project);
  return project;
}
