/**
 * Section 4c: what importing the main entry reads before any call, from the build: `dist/index.js`
 * and every file it imports statically, followed transitively (the chunks loaded on first use,
 * such as the schemas, undici and the multipart stack, are not counted). Bytes as written, and
 * gzipped as a whole.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
/** A static `import ... from './x.js'` or `import './x.js'` of a build file (not `import('./x.js')`). */
const STATIC_IMPORT = /(?:^|[;\n])\s*(?:import|export)\s*(?:[^'"();]*?\sfrom\s*)?["'](\.\/[^"']+)["']/g;

export function mainEntrySize() {
  const files = new Map();
  const visit = (/** @type {string} */ path) => {
    if (files.has(path)) return;
    const text = readFileSync(path);
    files.set(path, text);
    for (const [, spec] of text.toString('utf8').matchAll(STATIC_IMPORT)) visit(join(dirname(path), spec));
  };
  visit(join(dist, 'index.js'));
  const all = Buffer.concat([...files.values()]);
  return { files: files.size, bytes: all.length, gzipBytes: gzipSync(all).length };
}
