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

/** The Worker: one message sent per request, nothing else of the SDK asked for. */
export const WORKER = `import { MessagingClient } from 'tenant-messaging';
export default {
  async fetch(_request, env) {
    const client = new MessagingClient({ baseUrl: env.BASE_URL, apiKey: env.API_KEY });
    return Response.json(await client.messages.send({ sender_phone: '+15550001001', to_phone: '+15551230001', type: 'text', content: 'Hello' }));
  },
};
`;

/** @param {Uint8Array} bytes */
const sized = (bytes) => ({ bytes: bytes.byteLength, gzipBytes: gzipSync(bytes).byteLength });

/**
 * A project in `work` holding the built Workers entry (copied, not linked: the repository's
 * node_modules has every optional peer), the package's runtime dependencies linked, and the
 * minimal Worker with its wrangler.toml. Resolves with the project's folder.
 * @param {string} work
 */
export async function minimalWorkerProject(work) {
  const project = join(work, 'worker');
  const pkg = join(project, 'node_modules', 'tenant-messaging');
  await mkdir(join(pkg, 'dist'), { recursive: true });
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
    'name = "worker-bundle"\nmain = "worker.mjs"\ncompatibility_date = "2026-11-01"\n',
  );
  return project;
}

/**
 * The project's Worker bundled as wrangler bundles it for a deploy (its esbuild options, minified),
 * with esbuild's metafile; `nodePaths` as NODE_PATH would give them.
 * @param {string} project
 * @param {string[]} [nodePaths]
 */
export async function bundleLikeWrangler(project, nodePaths = []) {
  const { build } = await import('esbuild');
  return build({
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
}

/**
 * The project's Worker as `wrangler deploy --dry-run --minify` writes it (offline: a dry run bundles
 * and stops before any upload; no metrics, no update check).
 * @param {string} project
 */
export async function wranglerBundle(project) {
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
  return readFile(join(project, 'wrangler-out', 'worker.js'));
}

/** The minimal Worker's bundle, by esbuild and by wrangler. */
export async function workerBundleSizes() {
  const work = await mkdtemp(join(tmpdir(), 'tm-bench-worker-'));
  try {
    const project = await minimalWorkerProject(work);
    const bundled = await bundleLikeWrangler(project);
    return {
      esbuild: sized(bundled.outputFiles[0]?.contents ?? new Uint8Array()),
      wrangler: sized(await wranglerBundle(project)),
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
