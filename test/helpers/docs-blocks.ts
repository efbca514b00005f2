/**
 * The ```ts blocks of README.md, CONTRIBUTING.md and docs/*.md, and what the docs-snippets test
 * does with each: type-check it, and run it, as a script against the sandbox or under the test
 * runner it imports. A block is exempted only by a marker on the line before it, for a reason
 * {@link handling} checks:
 *
 * - `<!-- docs-snippets: run -->`: the Quickstart, run by a test of its own (as .mjs and .ts);
 * - `<!-- docs-snippets: excerpt of src/... -->` (CONTRIBUTING.md only): lines quoted from a
 *   source file, which must exist; neither checked nor run;
 * - `<!-- docs-snippets: needs <package> -->`: imports a package the repository does not
 *   install; neither checked nor run (the exemption ends by itself once it is installed);
 * - `<!-- docs-snippets: needs a datastore -->`: a fleet program, which waits on Redis or
 *   PostgreSQL: checked, not run; it must import `tenant-messaging/bullmq` and name a
 *   `connection` or a pool;
 * - `<!-- docs-snippets: needs POST /path -->`: calls, with `client.request`, an endpoint the
 *   specification leaves "not shown": checked, not run; the test asks the sandbox, which must
 *   not have it (the exemption ends once it does).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './npm.js';

export interface Block {
  file: string;
  /** The line of the first line of code (after the fence). */
  line: number;
  code: string;
  marker: string | undefined;
}

/** How a block is run: as a script against the sandbox, under a test runner, or not at all. */
export type RunMode = 'script' | 'vitest' | 'node:test' | 'quickstart' | 'not run';

export interface Handling {
  /** Type-checked with every other block (false: only for `excerpt of` and `needs <package>`). */
  checked: boolean;
  run: RunMode;
  /** For `needs <METHOD> <path>`: the endpoint the sandbox must not have. */
  route?: { method: string; path: string };
}

/** The Markdown files whose blocks are checked. */
export const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The ```ts blocks of `file`, with the marker on the line before each. */
export function blocks(file: string): Block[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    // A fence may be indented, inside a list item; its block ends at a fence of the same indent.
    const indent = /^ */.exec(text)?.[0] ?? '';
    if (!text.startsWith(`${indent}\`\`\``)) continue;
    const end = lines.indexOf(`${indent}\`\`\``, i + 1);
    if (end === -1) throw new Error(`${file}:${i + 1}: a code block that never ends`);
    if (text === `${indent}\`\`\`ts`) {
      const before = /^ *<!-- docs-snippets: (.+) -->$/.exec(lines[i - 1] ?? '')?.[1];
      const code = lines.slice(i + 1, end).map((line) => line.slice(indent.length));
      found.push({ file, line: i + 2, code: code.join('\n'), marker: before });
    }
    i = end;
  }
  return found;
}

/** `file:line` of a block, as failures name it. */
export const where = (block: Block) => `${block.file}:${block.line}`;

/** A file name for the block, unique in the run: `docs_testing_md_217`. */
export const slug = (block: Block) => `${block.file.replaceAll(/[/.-]/g, '_')}_${block.line}`;

/** What the test does with `block`; throws for a marker whose reason does not hold. */
export function handling(block: Block): Handling {
  const marker = block.marker;
  if (marker === undefined) return { checked: true, run: runner(block) };
  if (marker === 'run') return { checked: true, run: 'quickstart' };
  const excerpt = /^excerpt of (src\/\S+)$/.exec(marker)?.[1];
  if (excerpt !== undefined) {
    if (block.file !== 'CONTRIBUTING.md')
      throw new Error(`${where(block)}: only CONTRIBUTING.md may quote source excerpts`);
    if (!existsSync(join(root, excerpt))) throw new Error(`${where(block)}: ${excerpt} does not exist`);
    return { checked: false, run: 'not run' };
  }
  if (marker === 'needs a datastore') {
    const fleet = block.code.includes("from 'tenant-messaging/bullmq'") && /\bconnection\b|\bpool\b/i.test(block.code);
    if (!fleet) throw new Error(`${where(block)}: "needs a datastore", but it uses no queue, worker or relay`);
    return { checked: true, run: 'not run' };
  }
  const [, method, path] = /^needs (GET|POST|PUT|PATCH|DELETE) (\/\S*)$/.exec(marker) ?? [];
  if (method !== undefined && path !== undefined) {
    if (!block.code.includes(`method: '${method}', path: '${path}'`)) {
      throw new Error(`${where(block)}: the block does not call ${method} ${path} with client.request`);
    }
    return { checked: true, run: 'not run', route: { method, path } };
  }
  const needs = /^needs (\S+)$/.exec(marker)?.[1];
  if (needs !== undefined) {
    if (existsSync(join(root, 'node_modules', needs, 'package.json'))) {
      throw new Error(`${where(block)}: ${needs} is installed now: drop the marker, the block can be checked`);
    }
    if (!block.code.includes(`from '${needs}`)) throw new Error(`${where(block)}: the block does not import ${needs}`);
    return { checked: false, run: 'not run' };
  }
  throw new Error(`${where(block)}: unknown marker "${marker}"`);
}

/** The runner a block is written for: the test runner it imports, else a script. */
function runner(block: Block): RunMode {
  if (block.code.includes("from 'vitest'")) return 'vitest';
  if (block.code.includes("from 'node:test'")) return 'node:test';
  return 'script';
}

/** The optional peer an entry of the SDK loads, which the user installs beside it. */
const PEERS: Record<string, string> = {
  'tenant-messaging/otel': '@opentelemetry/api',
  'tenant-messaging/testing': 'msw',
};

/**
 * The packages a user installs to run a block: those it imports by name (not `node:`, not the
 * SDK's own), and the optional peers of the SDK's entries it imports.
 */
export function packagesOf(block: Block): string[] {
  const names = [...block.code.matchAll(/\bfrom '([^'.][^']*)'/g)].map((match) => match[1] ?? '');
  const packages = names
    .map((name) => PEERS[name] ?? name)
    .filter((name) => !name.startsWith('node:') && !/^tenant-messaging(\/|$)/.test(name))
    .map((name) =>
      name
        .split('/')
        .slice(0, name.startsWith('@') ? 2 : 1)
        .join('/'),
    );
  return [...new Set(packages)];
}

/** The files a block reads by a relative path (`mediaFromPath('./receipt.png')`), which the run supplies. */
export function filesOf(block: Block): string[] {
  return [...block.code.matchAll(/\(\s*'\.\/([\w.-]+)'\s*\)/g)].map((match) => match[1] ?? '');
}
