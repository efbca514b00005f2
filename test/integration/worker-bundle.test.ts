import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleLikeWrangler, minimalWorkerProject, wranglerBundle } from '../../bench/worker-size.mjs';
import { npm, root } from '../helpers/npm.js';

const LIMIT = 150_000;
const PHONE = /\/libphonenumber-js\//;

let work: string | undefined;
let project: string;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist', 'workerd', 'index.js'))) await npm(['run', 'build'], root);
  work = await mkdtemp(join(tmpdir(), 'tm-worker-bundle-'));
  project = await minimalWorkerProject(work);
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** Bundles the Worker as wrangler does (its esbuild options for a deploy, minified). */
async function bundle(nodePaths: string[] = []) {
  const result = await bundleLikeWrangler(project, nodePaths);
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
    const bundled = (await wranglerBundle(project)).toString('utf8');
    expect(bundled).not.toContain('country_calling_codes'); // libphonenumber-js's metadata
    expect(Buffer.byteLength(bundled), 'the bundle wrangler wrote, in bytes').toBeLessThanOrEqual(LIMIT);
  }, 60_000);
});
