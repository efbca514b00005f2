/**
 * The project a user has after `npm install tenant-messaging`, for section 4: the package packed
 * by `npm pack` (its `files`, its `exports`) and unpacked into `node_modules/tenant-messaging` of a
 * temporary folder, with its runtime dependencies beside it. Those are links to this clone's
 * `node_modules` (the same files `npm install` would write, without the network), and Node
 * follows links to their real paths. The cold scripts there import `tenant-messaging` and `undici`
 * by name, as a user's program does.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const scripts = fileURLToPath(new URL('./cold/', import.meta.url));

/**
 * The packed package: `TM_BENCH_SDK_TARBALL` when the caller packed this build already (the
 * suite's bench test passes the tarball every other file of its run installs), else packed now.
 */
function packedTarball(dir) {
  const given = process.env['TM_BENCH_SDK_TARBALL'];
  if (given) return given;
  // --ignore-scripts: the bench has just built dist (prepack would build it again).
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .at(-1);
  return join(dir, String(packed));
}

/** Makes the project; `dir` holds the cold scripts, `remove()` deletes it all. */
export function installedProject() {
  const dir = mkdtempSync(join(tmpdir(), 'tm-cold-'));
  try {
    const modules = join(dir, 'node_modules');
    const target = join(modules, 'tenant-messaging');
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', packedTarball(dir), '-C', target, '--strip-components=1']);
    const { dependencies = {} } = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    for (const name of Object.keys(dependencies)) {
      mkdirSync(join(modules, name, '..'), { recursive: true });
      symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
    }
    for (const file of readdirSync(scripts)) copyFileSync(join(scripts, file), join(dir, file));
    return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
