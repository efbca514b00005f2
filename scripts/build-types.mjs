// Emits the package's declarations for both module systems.
//
// Why not tsup's `dts`: tsup 9 reads compiler options through the TypeScript compiler API, which
// TypeScript 7 (the native compiler) no longer ships. So `tsc` emits `dist/**/*.d.ts` for ESM, and
// this script writes a `.d.cts` twin of each, with relative specifiers rewritten from `.js` to
// `.cjs`, so a `require` consumer gets CommonJS-flavoured types (checked by attw).
import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

const dist = join(root, 'dist');
for (const entry of await readdir(dist, { recursive: true })) {
  if (!entry.endsWith('.d.ts')) continue;
  const text = await readFile(join(dist, entry), 'utf8');
  const cjs = text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.js\2/g, '$1$2$3.cjs$2');
  await writeFile(join(dist, entry.replace(/\.d\.ts$/, '.d.cts')), cjs);
}
