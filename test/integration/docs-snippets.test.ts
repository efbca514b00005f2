/**
 * Every `ts` block of README.md, CONTRIBUTING.md and docs/*.md is a program: each is written to a
 * file of its own and type-checked, all in one `tsc` run, under the repository's settings
 * (`strict`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`), with the package's names
 * resolved to `src/` as the tests import them. A failure names the Markdown file and line.
 *
 * A block may be exempted only by a comment on the line before it, and only for a reason the test
 * can check:
 * - `<!-- docs-snippets: excerpt of src/... -->` (CONTRIBUTING.md only): a few lines quoted from a
 *   source file, which must exist;
 * - `<!-- docs-snippets: needs <package> -->`: imports a package the repository does not install
 *   (the exemption ends by itself once it is installed).
 *
 * The block marked `<!-- docs-snippets: run -->` (the Quickstart) also runs, as pasted, against the
 * sandbox it starts, as the README says a user runs it: in a project made by `npm init -y` (npm 11
 * writes `"type": "commonjs"`) with the packed package installed, as `quickstart.mjs`, then, after
 * `npm pkg set type=module`, as `quickstart.ts` (Node runs TypeScript as is). Needs `npm run build`
 * first (`npm test` does).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { npm } from '../helpers/npm.js';
import { copyProject, sharedPackages } from '../helpers/pack.js';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

interface Block {
  file: string;
  /** The line of the first line of code (after the fence). */
  line: number;
  code: string;
  marker: string | undefined;
}

function blocks(file: string): Block[] {
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

const all = DOCS.flatMap(blocks);
const work = join(root, 'node_modules', '.docs-snippets');
const user = mkdtempSync(join(tmpdir(), 'tm-quickstart-'));

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(user, { recursive: true, force: true });
});

/** Why a block is not type-checked, or undefined when it is; throws for a marker that does not hold. */
function exemption(block: Block): string | undefined {
  const marker = block.marker;
  if (marker === undefined || marker === 'run') return undefined;
  const where = `${block.file}:${block.line}`;
  const excerpt = /^excerpt of (src\/\S+)$/.exec(marker)?.[1];
  if (excerpt !== undefined) {
    if (block.file !== 'CONTRIBUTING.md') throw new Error(`${where}: only CONTRIBUTING.md may quote source excerpts`);
    if (!existsSync(join(root, excerpt))) throw new Error(`${where}: ${excerpt} does not exist`);
    return marker;
  }
  const needs = /^needs (\S+)$/.exec(marker)?.[1];
  if (needs !== undefined) {
    if (existsSync(join(root, 'node_modules', needs, 'package.json'))) {
      throw new Error(`${where}: ${needs} is installed now: drop the marker, the block can be checked`);
    }
    if (!block.code.includes(`from '${needs}`)) throw new Error(`${where}: the block does not import ${needs}`);
    return marker;
  }
  throw new Error(`${where}: unknown marker "${marker}"`);
}

describe('the documentation code blocks', () => {
  it('are found', () => {
    expect(all.length).toBeGreaterThan(20);
  });

  it('each type-check as a program of their own', { timeout: 120_000 }, async () => {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const checked = all.filter((block) => exemption(block) === undefined);
    const names = new Map<string, Block>();
    for (const block of checked) {
      const name = `${block.file.replaceAll(/[/.]/g, '_')}_${block.line}.ts`;
      names.set(name, block);
      // Each file a module, so top-level await works and names do not clash between blocks.
      writeFileSync(join(work, name), `${block.code}\nexport {};\n`);
    }
    writeFileSync(
      join(work, 'tsconfig.json'),
      // The snippets and what they import, with the ambient declarations of src/ (`*.lua`, `*.sql`),
      // not every file of the repository (the `include` it extends).
      JSON.stringify({
        extends: '../../tsconfig.json',
        compilerOptions: { noEmit: true },
        files: [...names.keys()],
        include: ['../../src/**/*.d.ts'],
      }),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const output = await run(process.execPath, [tsc, '-p', join(work, 'tsconfig.json'), '--pretty', 'false'], {
      cwd: work,
    }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    // "README_md_123.ts(4,7): error TS2304: ..." -> "README.md:126: TS2304: ..."
    const problems = output
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const match = /^(?:.*\/)?([^/(]+\.ts)\((\d+),\d+\): error (TS\d+): (.*)$/.exec(line);
        const block = match ? names.get(match[1] ?? '') : undefined;
        if (!match || !block) return line;
        return `${block.file}:${block.line + Number(match[2]) - 1}: ${match[3]}: ${match[4]}`;
      });
    expect(problems).toEqual([]);
  });

  it('the Quickstart runs as pasted, as quickstart.mjs and as quickstart.ts, in a project made by `npm init -y`', {
    timeout: 90_000,
  }, async () => {
    const quickstart = all.filter((block) => block.marker === 'run');
    expect(quickstart.map((block) => block.file)).toEqual(['README.md']);
    const code = `${quickstart[0]?.code ?? ''}\n`;
    // The package as published, installed as a user installs it in a project made by `npm init -y`
    // (the suite's install, test/helpers/pack.ts), copied: this test changes its package.json.
    const project = await copyProject((await sharedPackages()).sdkProject, join(user, 'project'));
    const story = async (file: string) => {
      writeFileSync(join(project, file), code);
      const { stdout } = await run(process.execPath, [file], { cwd: project, timeout: 30_000 });
      const lines = stdout.trim().split('\n');
      expect(lines[0], file).toMatch(/^sent: message log \d+, delivery_status sent$/);
      expect(lines, file).toContain('now read');
      expect(lines, file).toContain('confirmed: read');
      expect(lines.at(-1), file).toMatch(/^\d+ text read$/);
    };
    // `node quickstart.mjs` in the project as `npm init -y` left it ("type": "commonjs" with npm 11).
    await story('quickstart.mjs');
    // The README: `npm pkg set type=module` once, then `node quickstart.ts`.
    await npm(['pkg', 'set', 'type=module'], project);
    await story('quickstart.ts');
  });
});
