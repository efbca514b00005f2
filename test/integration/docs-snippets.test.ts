/**
 * Every `ts` block of README.md, CONTRIBUTING.md and docs/*.md is a program: each is written to a
 * file of its own and type-checked, all in one `tsc` run, under the repository's settings
 * (`strict`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`), with the package's names
 * resolved to `src/` as the tests import them. A failure names the Markdown file and line.
 *
 * Each block also runs, as a user who pastes it runs it (test/helpers/docs-run.ts): a script
 * against a new sandbox on loopback named by the two environment variables, a block that imports
 * vitest or node:test under that runner, each within a bound (a block that waits longer is fixed
 * in the docs). A block is exempted only by a marker on the line before it, for a reason the test
 * checks (test/helpers/docs-blocks.ts): a source excerpt, a package the repository does not
 * install, a fleet program that needs a datastore, an endpoint the sandbox does not have.
 *
 * The block marked `<!-- docs-snippets: run -->` (the Quickstart) runs, as pasted, against the
 * sandbox it starts, as the README says a user runs it: in a project made by `npm init -y` (npm 11
 * writes `"type": "commonjs"`) with the packed package installed, as `quickstart.mjs`, then, after
 * `npm pkg set type=module`, as `quickstart.ts` (Node runs TypeScript as is). Needs `npm run build`
 * first (`npm test` does).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createSandbox } from 'tenant-messaging/sandbox';
import { afterAll, describe, expect, it } from 'vitest';
import { type Block, blocks, DOCS, handling, slug, where } from '../helpers/docs-blocks.js';
import { runBlocks } from '../helpers/docs-run.js';
import { npm, root } from '../helpers/npm.js';
import { copyProject, sharedPackages } from '../helpers/pack.js';

const run = promisify(execFile);
const all = DOCS.flatMap(blocks);
const work = join(root, 'node_modules', '.docs-snippets');
const user = mkdtempSync(join(tmpdir(), 'tm-quickstart-'));

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(user, { recursive: true, force: true });
});

describe('the documentation code blocks', () => {
  it('are found', () => {
    expect(all.length).toBeGreaterThan(20);
  });

  it('each type-check as a program of their own', { timeout: 120_000 }, async () => {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const checked = all.filter((block) => handling(block).checked);
    const names = new Map<string, Block>();
    for (const block of checked) {
      const name = `${slug(block)}.ts`;
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
    const quickstart = all.filter((block) => handling(block).run === 'quickstart');
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

  it('run as pasted: each script against the sandbox, each test under its runner, within a bound', {
    timeout: 180_000,
  }, async () => {
    const { problems, ran } = await runBlocks(join(user, 'blocks'), all);
    expect(problems).toEqual([]);
    // Every block that runs was run, none dropped on the way.
    const runs = all.filter((block) => ['script', 'vitest', 'node:test'].includes(handling(block).run));
    expect(ran.map((entry) => entry.block).sort()).toEqual(runs.map(where).sort());
  });

  it('an endpoint a block is exempted for is one the sandbox does not have', async () => {
    const sandbox = createSandbox();
    const { baseUrl, keys } = sandbox.tenants.acme;
    const routes = all.flatMap((block) => {
      const route = handling(block).route;
      return route ? [{ block, ...route }] : [];
    });
    expect(routes.length).toBeGreaterThan(0);
    for (const { block, method, path } of routes) {
      const headers = { 'x-api-key': keys.full, accept: 'application/json', 'content-type': 'application/json' };
      const answer = await sandbox.fetch(`${baseUrl}/api/v1${path}`, { method, headers, body: '{}' });
      expect([404, 405], `${where(block)}: the sandbox has ${method} ${path} now: drop the marker`).toContain(
        answer.status,
      );
    }
  });
});
