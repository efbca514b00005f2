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

// `tenant-messaging/testing` names msw's HttpHandler, but msw is an optional peer: its declarations
// must compile without msw (`sandboxHandlers()` alone needs it). tsc drops comments on imports, so
// the `@ts-ignore` that lets the import stay unresolved is put back here; `SandboxHandler` then
// turns the resulting `any` into a named type (src/testing.ts).
const OPTIONAL_TYPE_IMPORTS = { 'testing.d.ts': "import type * as Msw from 'msw';" };
for (const [file, line] of Object.entries(OPTIONAL_TYPE_IMPORTS)) {
  const text = await readFile(join(dist, file), 'utf8');
  if (!text.includes(line))
    throw new Error(`build-types: ${file} no longer has \`${line}\`: update OPTIONAL_TYPE_IMPORTS`);
  await writeFile(
    join(dist, file),
    text.replace(line, `// @ts-ignore an optional peer dependency, maybe not installed\n${line}`),
  );
}

for (const entry of await readdir(dist, { recursive: true })) {
  if (!entry.endsWith('.d.ts')) continue;
  const text = await readFile(join(dist, entry), 'utf8');
  const cjs = text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.js\2/g, '$1$2$3.cjs$2');
  await writeFile(join(dist, entry.replace(/\.d\.ts$/, '.d.cts')), cjs);
}
