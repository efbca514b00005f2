// Writes dist/openapi.json (shipped as `tenant-messaging/openapi.json`) from src/openapi/document.ts.
//
// Why bundle first: the generator reads the SDK's TypeScript sources (the endpoint table and the
// Zod schemas), whose imports name `.js` files; esbuild resolves them as tsup does, into a
// temporary module that is imported once and deleted. Nothing of it enters dist/ but the JSON.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = await mkdtemp(join(tmpdir(), 'tm-openapi-'));
try {
  const outfile = join(work, 'document.mjs');
  await build({
    entryPoints: [join(root, 'src', 'openapi', 'document.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outfile,
    logLevel: 'warning',
  });
  const { openApiDocument } = await import(pathToFileURL(outfile).href);
  await writeFile(join(root, 'dist', 'openapi.json'), `${JSON.stringify(openApiDocument(), null, 2)}\n`);
} finally {
  await rm(work, { recursive: true, force: true });
}
