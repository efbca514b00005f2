import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const root = fileURLToPath(new URL('../../', import.meta.url));
const node = process.execPath;
// npm is run by the Node that runs the tests, so a Node 20 machine still packs with Node >= 22.
const npmCli = join(dirname(dirname(node)), 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
// Settings of an outer npx (CI runs the Node 22 suite under one) must not leak into these installs.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_allow_scripts$/i.test(key)));

/** Runs npm with `args` in `cwd`. */
export const npm = (args: string[], cwd: string) =>
  existsSync(npmCli) ? run(node, [npmCli, ...args], { cwd, env }) : run('npm', args, { cwd, env });

/**
 * Packs the package as npm would publish it (only what `files` lists; dist must be built) into
 * `work`, and installs the tarball into a new project `work/<name>` of `type: module`.
 * Returns the tarball's and the project's paths.
 */
export async function packAndInstall(work: string, name: string): Promise<{ tarball: string; project: string }> {
  if (!existsSync(join(root, 'dist', 'index.js'))) await npm(['run', 'build'], root);
  const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], root);
  const [info] = JSON.parse(stdout) as { filename: string }[];
  const tarball = join(work, info?.filename ?? '');
  const project = join(work, name);
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  await npm(['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], project);
  return { tarball, project };
}
