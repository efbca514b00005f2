/**
 * The fleet's import rules hold by lint (biome.json's overrides for src/bullmq/): the fleet takes
 * the SDK only through its public entries and the one seam (src/seam/), and each of its
 * layers imports only the layers below it. Every pair of layers is planted, both ways, at each
 * folder depth, in a copy of the project's lint configuration; one biome run lints them all.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/npm.js';

const BIOME = join(root, 'node_modules/@biomejs/biome/bin/biome');

/**
 * The fleet's layers, lowest first (src/bullmq/README.md). A layer's members are peers, which do
 * not import each other: but outbox/, which sends through queue/.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['types.ts'],
  ['store/'],
  ['checks.ts'],
  ['schedule/'],
  ['fleet/'],
  ['send/'],
  ['queue/', 'worker/', 'webhooks/', 'outbox/'],
];
const rank = (unit: string) => LAYERS.findIndex((layer) => layer.includes(unit));

/**
 * Where the file of `unit` is planted at `depth` below src/bullmq: `checks.ts` as itself, the
 * base files as another top-level file, a folder's as a file in it or in a folder of it.
 */
function fileOf(unit: string, depth: number): string {
  if (unit === 'checks.ts') return 'src/bullmq/checks.ts';
  if (!unit.endsWith('/')) return 'src/bullmq/zz-base.ts';
  return `src/bullmq/${unit}${depth === 2 ? 'nested/' : ''}zz.ts`;
}

/** The specifier from `file` to `target`: a path below src/bullmq, or one of the SDK's below src. */
function specifier(file: string, target: string, sdk = false): string {
  const up = '../'.repeat(file.split('/').length - 3);
  return sdk ? `${up}../${target}` : `${up || './'}${target}`;
}

interface Case {
  readonly label: string;
  readonly file: string;
  readonly line: number;
  readonly refused: boolean;
}

/** Each planted file's lines (one import each), and what each line expects. */
const files = new Map<string, string[]>();
const cases: Case[] = [];
function plant(label: string, file: string, spec: string, refused: boolean): void {
  const lines = files.get(file) ?? files.set(file, []).get(file) ?? [];
  lines.push(`import { x${lines.length} } from '${spec}';`);
  cases.push({ label, file, line: lines.length, refused });
}

for (const from of LAYERS.flat()) {
  for (const depth of from.endsWith('/') ? [1, 2] : [0]) {
    const file = fileOf(from, depth);
    for (const to of LAYERS.flat()) {
      if (to === from) continue;
      const refused = rank(to) > rank(from) || (rank(to) === rank(from) && !(from === 'outbox/' && to === 'queue/'));
      plant(
        `${from} (depth ${depth}) -> ${to}`,
        file,
        specifier(file, to.endsWith('/') ? `${to}x.js` : to.replace(/\.ts$/, '.js')),
        refused,
      );
    }
    // The SDK: its public entries and the seam pass; anything else of it is refused.
    for (const [target, refused] of [
      ['index.js', false],
      ['webhooks/index.js', false],
      ['seam/timing.js', false],
      ['internal/waiting/sleep.js', true],
      ['core/rate/lanes.js', true],
      ['errors.js', true],
      ['webhooks/attempt.js', true],
    ] as const) {
      plant(`${from} (depth ${depth}) -> the SDK's ${target}`, file, specifier(file, target, true), refused);
    }
  }
}

/** `file:line` of each import the lint refused. */
let refusedLines = new Set<string>();

beforeAll(async () => {
  const project = await mkdtemp(join(tmpdir(), 'tm-fleet-lint-'));
  try {
    const config = JSON.parse(await readFile(join(root, 'biome.json'), 'utf8'));
    delete config.$schema;
    await writeFile(join(project, 'biome.json'), JSON.stringify(config));
    // The configuration names a plugin of the unit tier's (unit-tier-lint.test.ts): it must load.
    await cp(join(root, 'lint'), join(project, 'lint'), { recursive: true });
    for (const [file, lines] of files) {
      await mkdir(dirname(join(project, file)), { recursive: true });
      const names = lines.map((_, i) => `x${i}`).join(', ');
      await writeFile(join(project, file), `${lines.join('\n')}\nexport { ${names} };\n`);
    }
    const run = await promisify(execFile)(
      process.execPath,
      [BIOME, 'lint', '--reporter=json', '--max-diagnostics=none', 'src'],
      { cwd: project, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { stdout: string }) => error);
    // The report is the one JSON document on stdout (biome may say first that the format is new).
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
      diagnostics: { category: string; location: { path: string; start: { line: number } } }[];
    };
    refusedLines = new Set(
      report.diagnostics
        .filter((d) => d.category === 'lint/style/noRestrictedImports')
        .map((d) => `${d.location.path.replace(/^.*?(src\/bullmq\/)/, '$1')}:${d.location.start.line}`),
    );
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}, 90_000);

describe('the fleet’s imports, by lint', () => {
  it('refuses every import of a higher layer or a peer, and of the SDK past its entries and the seam; allows the rest', () => {
    expect(cases.length).toBeGreaterThan(150);
    const wrong = cases
      .filter(({ file, line, refused }) => refusedLines.has(`${file}:${line}`) !== refused)
      .map(({ label, refused }) => `${label}: ${refused ? 'allowed' : 'refused'}`);
    expect(wrong).toEqual([]);
  });
});
