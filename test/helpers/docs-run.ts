/**
 * Runs the documentation's blocks as a user who pastes them runs them: in a project made by
 * `npm init -y` with the packed package installed (test/helpers/pack.ts) and `"type": "module"`
 * (the README's `npm pkg set type=module`), each block a file of its own, the packages it
 * imports installed beside the SDK (linked from the repository's node_modules), and the files it
 * names (`./receipt.png`) put beside it. A few processes, side by side:
 *
 * - the script blocks: one process (test/helpers/docs-runner.mjs), one worker thread per block,
 *   each against a new sandbox on loopback named by `TENANT_MESSAGING_BASE_URL` and
 *   `TENANT_MESSAGING_API_KEY`, as the README's second program reads them;
 * - the vitest blocks: one `vitest run` over all of them;
 * - the node:test blocks: `node --test`, one process per block (as node:test runs a file).
 *
 * Each block is bounded ({@link BOUND_MS}); a failure names the Markdown file and line.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { type Block, filesOf, handling, packagesOf, type RunMode, slug, where } from './docs-blocks.js';
import { root } from './npm.js';
import { copyProject, sharedPackages } from './pack.js';

const run = promisify(execFile);

/** How long one block may take, as pasted: a block that waits longer is fixed in the docs. */
export const BOUND_MS = 15_000;
/** How many script blocks run at once. */
const AT_ONCE = 4;

/** What a run found wrong, one entry per block (`docs/x.md:12: ...`), and which blocks it ran, how. */
export interface RunReport {
  problems: string[];
  ran: { block: string; mode: RunMode }[];
}

// The environment of the runs: the suite's, without vitest's own (a nested vitest run must not
// think it is a worker of this one).
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(VITEST|TINYPOOL)/.test(key)));

/** Makes the user's project at `dest`: the packed SDK, `"type": "module"`, and what the blocks import and read. */
async function project(dest: string, blocks: readonly Block[]): Promise<string> {
  const dir = await copyProject((await sharedPackages()).sdkProject, dest);
  const manifest = join(dir, 'package.json');
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), type: 'module' }, null, 2));
  const modes = new Set(blocks.map((block) => handling(block).run));
  const packages = new Set(blocks.flatMap(packagesOf));
  if (modes.has('vitest')) packages.add('vitest');
  for (const name of packages) {
    const installed = join(dir, 'node_modules', name);
    if (existsSync(installed)) continue;
    if (!existsSync(join(root, 'node_modules', name))) throw new Error(`${name} is not installed in the repository`);
    mkdirSync(dirname(installed), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), installed);
  }
  for (const file of new Set(blocks.flatMap(filesOf))) {
    // An image is a real PNG; any other file, a few bytes (the sandbox stores any document).
    if (file.endsWith('.png')) copyFileSync(join(root, 'examples', 'assets', 'receipt.png'), join(dir, file));
    else writeFileSync(join(dir, file), `%PDF-1.4\n% ${file}, made by the docs-snippets test\n%%EOF\n`);
  }
  return dir;
}

/** The script blocks, each in a worker of one process, against a loopback sandbox of its own. */
async function scripts(dir: string, blocks: readonly Block[], report: RunReport): Promise<void> {
  if (blocks.length === 0) return;
  const byId = new Map(blocks.map((block) => [slug(block), block]));
  for (const [id, block] of byId) writeFileSync(join(dir, `${id}.ts`), `${block.code}\n`);
  const manifest = join(dir, 'docs-blocks.json');
  const results = join(dir, 'docs-results.json');
  writeFileSync(
    manifest,
    JSON.stringify({
      boundMs: BOUND_MS,
      atOnce: AT_ONCE,
      blocks: [...byId.keys()].map((id) => ({ id, file: `${id}.ts` })),
    }),
  );
  copyFileSync(join(root, 'test', 'helpers', 'docs-runner.mjs'), join(dir, 'docs-runner.mjs'));
  await run(process.execPath, ['--disable-warning=ExperimentalWarning', 'docs-runner.mjs', manifest, results], {
    cwd: dir,
    env,
    // Every block at its bound, a few at a time, and the process's own start and end.
    timeout: Math.ceil(byId.size / AT_ONCE) * BOUND_MS + 20_000,
  });
  const outcomes = JSON.parse(readFileSync(results, 'utf8')) as {
    id: string;
    code: number;
    error?: string;
    timedOut: boolean;
    stdout: string;
    stderr: string;
  }[];
  for (const outcome of outcomes) {
    const block = byId.get(outcome.id) as Block;
    report.ran.push({ block: where(block), mode: 'script' });
    const output = `\n--- stdout:\n${outcome.stdout}--- stderr:\n${outcome.stderr}`;
    if (outcome.timedOut) report.problems.push(`${where(block)}: still running after ${BOUND_MS} ms${output}`);
    else if (outcome.error !== undefined) report.problems.push(`${where(block)}: threw ${outcome.error}${output}`);
    else if (outcome.code !== 0) report.problems.push(`${where(block)}: exited ${outcome.code}${output}`);
    else if (outcome.stderr.trim() !== '') report.problems.push(`${where(block)}: wrote to stderr${output}`);
  }
}

/** The vitest blocks, as test files of one `vitest run` in the project. */
async function vitest(dir: string, blocks: readonly Block[], report: RunReport): Promise<void> {
  if (blocks.length === 0) return;
  const tests = join(dir, 'docs-vitest');
  mkdirSync(tests);
  const byFile = new Map(blocks.map((block) => [join(tests, `${slug(block)}.test.ts`), block]));
  for (const [file, block] of byFile) writeFileSync(file, `${block.code}\n`);
  const out = join(dir, 'vitest.json');
  const cli = join(dir, 'node_modules', 'vitest', 'vitest.mjs');
  const args = [cli, 'run', '--root', tests, '--reporter=json', `--outputFile=${out}`, `--testTimeout=${BOUND_MS}`];
  const ended = await run(process.execPath, args, { cwd: dir, env, timeout: BOUND_MS + 30_000 }).then(
    () => '',
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
  );
  if (!existsSync(out)) throw new Error(`vitest wrote no results:\n${ended}`);
  const json = JSON.parse(readFileSync(out, 'utf8')) as {
    testResults: {
      name: string;
      status: string;
      message?: string;
      assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
    }[];
  };
  for (const [file, block] of byFile) {
    const result = json.testResults.find((entry) => entry.name === file);
    report.ran.push({ block: where(block), mode: 'vitest' });
    if (!result) report.problems.push(`${where(block)}: vitest did not run it\n${ended}`);
    else if (result.assertionResults.length === 0)
      report.problems.push(`${where(block)}: no test() in it: ${result.message ?? ''}`);
    else if (result.status !== 'passed') {
      const failures = result.assertionResults.filter((test) => test.status !== 'passed');
      const text = failures.map((test) => `${test.fullName}: ${test.failureMessages.join('\n')}`).join('\n');
      report.problems.push(`${where(block)}: failed under vitest: ${result.message ?? ''}${text}`);
    }
  }
}

/** A node:test block, as `node --test` runs a file of the project. */
async function nodeTest(dir: string, block: Block, report: RunReport): Promise<void> {
  const file = `${slug(block)}.test.ts`;
  writeFileSync(join(dir, file), `${block.code}\n`);
  const args = ['--test', '--test-reporter=tap', `--test-timeout=${BOUND_MS}`, file];
  const { output, failed } = await run(process.execPath, args, { cwd: dir, env, timeout: BOUND_MS + 20_000 }).then(
    ({ stdout }) => ({ output: stdout, failed: false }),
    (error: { stdout?: string; stderr?: string }) => ({
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      failed: true,
    }),
  );
  report.ran.push({ block: where(block), mode: 'node:test' });
  // A file with no test() in it is reported as one test named after the file, which passes.
  const tests = [...output.matchAll(/^# Subtest: (.*)$/gm)].filter((match) => match[1] !== file);
  if (tests.length === 0) report.problems.push(`${where(block)}: no test() in it, under node --test:\n${output}`);
  else if (failed) report.problems.push(`${where(block)}: failed under node --test:\n${output}`);
}

/** Runs every block that runs (see test/helpers/docs-blocks.ts) in a project made at `dest`. */
export async function runBlocks(dest: string, all: readonly Block[]): Promise<RunReport> {
  const report: RunReport = { problems: [], ran: [] };
  const of = (mode: string) => all.filter((block) => handling(block).run === mode);
  const dir = await project(dest, [...of('script'), ...of('vitest'), ...of('node:test')]);
  await Promise.all([
    scripts(dir, of('script'), report),
    vitest(dir, of('vitest'), report),
    ...of('node:test').map((block) => nodeTest(dir, block, report)),
  ]);
  return report;
}
