/**
 * Section 4d: a minimal Cloudflare Worker that sends one message, bundled from the build's
 * `workerd` entry in a project with no optional peer: by esbuild as wrangler runs it (bundle,
 * minify, conditions workerd/worker/browser), and by `wrangler deploy --dry-run --minify` itself.
 * Bytes as written and gzipped. test/integration/worker-bundle.test.ts holds both to 150 KB.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));

const WORKER = `import { MessagingClient } from 'tenant-messaging';
export default {
  async fetch(_request, env) {
    const client = new MessagingClient({ baseUrl: env.BASE_URL, apiKey: env.API_KEY });
    return Response.json(await client.messages.send({ sender_phone: '+15550001001', to_phone: '+15551230001', type: 'text', content: 'Hello' }));
  },
};
`;

/** @param {Uint8Array} bytes */
const sized = (bytes) => ({ bytes: bytes.byteLength, gzipBytes: gzipSync(bytes).byteLength });

/** The minimal Worker's bundle, by esbuild and by wrangler. */
export async function workerBundleSizes() {
  const work = await mkdtemp(join(tmpdir(), 'tm-bench-worker-'));
  try {
    const project = join(work, 'worker');
    const pkg = join(project, 'node_modules', 'tenant-messaging');
    await mkdir(join(pkg, 'dist'), { recursive: true });
    // Copies, not a link: the repository's node_modules has every optional peer.
    await cp(join(root, 'dist', 'workerd'), join(pkg, 'dist', 'workerd'), { recursive: true });
    await cp(join(root, 'package.json'), join(pkg, 'package.json'));
    const { dependencies = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const name of Object.keys(dependencies)) {
      await symlink(join(root, 'node_modules', name), join(project, 'node_modules', name), 'dir');
    }
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'worker', private: true, type: 'module' }));
    await writeFile(join(project, 'worker.mjs'), WORKER);
    await writeFile(
      join(project, 'wrangler.toml'),
      'name = "bench"\nmain = "worker.mjs"\ncompatibility_date = "2026-11-01"\n',
    );

    const { build } = await import('esbuild');
    const bundled = await build({
      entryPoints: [join(project, 'worker.mjs')],
      absWorkingDir: project,
      bundle: true,
      minify: true,
      format: 'esm',
      target: 'es2024',
      conditions: ['workerd', 'worker', 'browser'],
      external: ['node:*', 'cloudflare:*'],
      write: false,
      outfile: join(project, 'out', 'worker.js'),
      logLevel: 'silent',
    });
    const esbuild = sized(bundled.outputFiles[0]?.contents ?? new Uint8Array());

    // Offline: a dry run bundles and stops before any upload. No metrics, no update check.
    const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
    await promisify(execFile)(
      process.execPath,
      [wrangler, 'deploy', '--dry-run', '--minify', '--outdir', 'wrangler-out'],
      {
        cwd: project,
        env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_UPDATE_NOTIFIER: '1' },
        timeout: 60_000,
      },
    );
    return { esbuild, wrangler: sized(await readFile(join(project, 'wrangler-out', 'worker.js'))) };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
