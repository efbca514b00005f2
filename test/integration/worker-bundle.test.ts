/**
 * A Worker bundles small (issue 37): a minimal Cloudflare Worker that sends one message, bundled
 * from the built package's `workerd` entry as wrangler bundles it (esbuild: bundle, minify, ES
 * module, conditions workerd/worker/browser, es2024), in a project where no optional peer is
 * installed, must build and stay within 150 KB. libphonenumber-js, the optional peer of recipient
 * pacing, is left out: the bundler leaves its import to fail at run time, where the SDK says what
 * to install. With it installed (a user who asked for recipient pacing), it is bundled.
 *
 * The project is a copy of the built Workers entry and package.json in a temporary node_modules,
 * with the package's runtime dependencies linked from the repository and nothing else: there,
 * libphonenumber-js resolves nowhere. Builds the package first when dist is missing.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npm, root } from '../helpers/npm.js';

const LIMIT = 150_000;
const PHONE = /\/libphonenumber-js\//;

const WORKER = `import { MessagingClient } from 'tenant-messaging';
export default {
  async fetch(_request, env) {
    const client = new MessagingClient({ baseUrl: env.BASE_URL, apiKey: env.API_KEY });
    const sent = await client.messages.send({ sender_phone: '+15550001001', to_phone: '+15551230001', type: 'text', content: 'Hello' });
    return Response.json(sent);
  },
};
`;

let work: string | undefined;
let project: string;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist', 'workerd', 'index.js'))) await npm(['run', 'build'], root);
  work = await mkdtemp(join(tmpdir(), 'tm-worker-bundle-'));
  project = join(work, 'worker');
  const pkg = join(project, 'node_modules', 'tenant-messaging');
  await mkdir(join(pkg, 'dist'), { recursive: true });
  // Copies, not links: a link would resolve to the repository, whose node_modules has every peer.
  await cp(join(root, 'dist', 'workerd'), join(pkg, 'dist', 'workerd'), { recursive: true });
  await cp(join(root, 'package.json'), join(pkg, 'package.json'));
  const { dependencies = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const name of Object.keys(dependencies)) {
    await symlink(join(root, 'node_modules', name), join(project, 'node_modules', name), 'dir');
  }
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'worker', private: true, type: 'module' }));
  await writeFile(join(project, 'worker.mjs'), WORKER);
  await writeFile(
    join(project, 'wrangler.toml'),
    'name = "worker-bundle"\nmain = "worker.mjs"\ncompatibility_date = "2026-11-01"\n',
  );
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** Bundles the Worker as wrangler does (its esbuild options for a deploy, minified). */
async function bundle(nodePaths: string[] = []) {
  const result = await build({
    entryPoints: [join(project, 'worker.mjs')],
    absWorkingDir: project,
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2024',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['node:*', 'cloudflare:*'],
    metafile: true,
    write: false,
    outfile: join(project, 'out', 'worker.js'),
    logLevel: 'silent',
    nodePaths,
  });
  const [output] = result.outputFiles;
  return { size: output?.contents.byteLength ?? 0, text: output?.text ?? '', metafile: result.metafile };
}

/** The inputs of the bundle, largest first, as `bytes path` lines: what a failure shows. */
function largest(metafile: Metafile): string[] {
  const [output] = Object.values(metafile.outputs);
  return Object.entries(output?.inputs ?? {})
    .sort(([, a], [, b]) => b.bytesInOutput - a.bytesInOutput)
    .slice(0, 8)
    .map(([path, { bytesInOutput }]) => `${bytesInOutput} ${path}`);
}

describe('the Workers build', () => {
  // A Worker with no compatibility flag at an older date has no `node:` module at all: one static
  // import of one, and the Worker does not start (ecosystem/runtimes.test.ts runs it at each date).
  it('imports no node: module statically, in any of its files', async () => {
    const folder = join(root, 'dist', 'workerd');
    const files = (await readdir(folder)).filter((name) => name.endsWith('.js'));
    expect(files.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const name of files) {
      const text = await readFile(join(folder, name), 'utf8');
      for (const [line] of text.matchAll(/^.*(?:\bfrom\s*|\bimport\s*)["']node:[^"']+["'].*$/gm))
        found.push(`${name}: ${line}`);
    }
    expect(found).toEqual([]);
  });
});

describe('a minimal Worker that sends one message', () => {
  it('bundles within 150 KB minified where no optional peer is installed, libphonenumber-js left out', async () => {
    const { size, text, metafile } = await bundle();
    expect(Object.keys(metafile.inputs).filter((path) => PHONE.test(path))).toEqual([]);
    // The import stays, to fail at run time with the SDK's own error, only if perRecipient is used.
    expect(text).toContain('import("libphonenumber-js/min")');
    expect(size, `the largest inputs:\n${largest(metafile).join('\n')}`).toBeLessThanOrEqual(LIMIT);
  });

  it('bundles libphonenumber-js when it is installed (a user who paces recipients), the SDK alone unchanged', async () => {
    // The control: the repository's copy found where nothing else is, as NODE_PATH would.
    const { size: without } = await bundle();
    const { size, metafile } = await bundle([join(root, 'node_modules')]);
    expect(Object.keys(metafile.inputs).some((path) => PHONE.test(path))).toBe(true);
    expect(size).toBeGreaterThan(without + 100_000);
  });

  it('wrangler deploy --dry-run --minify builds it, within 150 KB', async () => {
    const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
    if (!existsSync(wrangler)) {
      const hint = 'wrangler is not installed: run npm install (it is a dev dependency) to bundle the Worker with it';
      if (process.env['CI'] === 'true') throw new Error(`${hint} (it may not skip under CI=true)`);
      console.warn(`SKIPPED: ${hint}`);
      return;
    }
    const outdir = join(project, 'wrangler-out');
    // Offline: a dry run bundles and stops before any upload. No metrics, no update check.
    await promisify(execFile)(process.execPath, [wrangler, 'deploy', '--dry-run', '--minify', '--outdir', outdir], {
      cwd: project,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_UPDATE_NOTIFIER: '1' },
      timeout: 60_000,
    });
    const bundled = await readFile(join(outdir, 'worker.js'), 'utf8');
    expect(bundled).not.toContain('country_calling_codes'); // libphonenumber-js's metadata
    expect(Buffer.byteLength(bundled), 'the bundle wrangler wrote, in bytes').toBeLessThanOrEqual(LIMIT);
  }, 60_000);
});
