import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

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
