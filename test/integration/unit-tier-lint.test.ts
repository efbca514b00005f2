/**
 * The unit tier's rules hold by lint (biome.json's override for test/unit/ and
 * packages/<name>/test/unit/, with lint/unit-tier.grit): what the tier forbids fails
 * `npm run lint`, naming its remedy, and what it allows passes. Each case is linted as a file of
 * the tier would be (biome reads it from stdin under a path of the tier) and, for contrast, as a
 * file of the integration tier, where none of it is refused.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/npm.js';

const BIOME = join(root, 'node_modules/@biomejs/biome/bin/biome');
let project = '';

// The project's lint configuration in a folder of its own, where the planted files are written
// (biome reports nothing of a file it reads from stdin).
beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'tm-unit-lint-'));
  const config = JSON.parse(await readFile(join(root, 'biome.json'), 'utf8'));
  delete config.$schema;
  await writeFile(join(project, 'biome.json'), JSON.stringify(config));
  await cp(join(root, 'lint'), join(project, 'lint'), { recursive: true });
});
afterAll(() => rm(project, { recursive: true, force: true }));

let planted = 0;

/** Biome's lint of `source` written at `path` of the project: its exit code and its report. */
async function lint(path: string, source: string): Promise<{ code: number; report: string }> {
  const file = join(project, `${path.replace(/\.test\.ts$/, '')}-${++planted}.test.ts`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, source);
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIOME, 'lint', file], {
      cwd: project,
      timeout: 30_000,
    });
    return { code: 0, report: stdout + stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, report: stdout + stderr };
  }
}

const REFUSED: [string, string, RegExp][] = [
  [
    'an elapsed wall time',
    'export const t = performance.now();\nexpect(performance.now() - t).toBeLessThan(50);\n',
    /reads no wall clock/,
  ],
  ['Date.now()', 'export const t = Date.now();\n', /reads no wall clock/],
  ['new Date()', 'export const t = new Date();\n', /reads no wall clock/],
  ['hrtime', 'export const t = process.hrtime.bigint();\n', /reads no wall clock/],
  ['a fixed sleep', 'await new Promise((resolve) => setTimeout(resolve, 100));\n', /waits on no real timer/],
  [
    'a sleep from timers/promises',
    "import { setTimeout as sleep } from 'node:timers/promises';\n\nawait sleep(100);\n",
    /no real process, socket, datastore or timer/,
  ],
  ['a figure printed', "console.log('rate', 5);\n", /prints nothing/],
  ['a child process', "import { spawn } from 'node:child_process';\n\nspawn('ls');\n", /no real process/],
  ['Redis', "import Redis from 'ioredis';\n\nexport const redis = new Redis();\n", /no real process/],
  [
    'a loopback server helper',
    "import { startServer } from '../helpers/server.js';\n\nawait startServer(() => {});\n",
    /no real process/,
  ],
  [
    'the sandbox on a socket',
    "import { startSandbox } from 'tenant-messaging/sandbox';\n\nawait startSandbox();\n",
    /opens no socket/,
  ],
];

describe('the unit tier, by lint', () => {
  it.each(REFUSED)('refuses %s in test/unit/, and names the remedy', async (_, source, message) => {
    const unit = await lint('test/unit/planted.test.ts', source);
    expect(unit.code, unit.report).not.toBe(0);
    expect(unit.report).toMatch(message);
    const integration = await lint('test/integration/planted.test.ts', source);
    expect(integration.report).not.toMatch(message);
  });

  it('refuses it in a package’s unit tier too', async () => {
    const { code, report } = await lint('packages/cli/test/unit/planted.test.ts', REFUSED[0]?.[1] as string);
    expect(code).not.toBe(0);
    expect(report).toMatch(/reads no wall clock/);
  });

  it('allows fake timers, fixed dates, the in-process sandbox and words in comments', async () => {
    const source = [
      "import { createSandbox } from 'tenant-messaging/sandbox';",
      "import { vi } from 'vitest';",
      '',
      '// performance.now(), console.log and setTimeout(resolve, 100) in a comment are words',
      'vi.useFakeTimers();',
      "export const at = new Date('2026-01-01T00:00:00Z');",
      'export const fake = vi.getMockedSystemTime();',
      'export const sandbox = createSandbox();',
      "export const hint = 'setTimeout(resolve, 100)';",
      "vi.spyOn(console, 'warn').mockImplementation(() => undefined);",
      'await vi.advanceTimersByTimeAsync(1_000);',
      '',
    ].join('\n');
    const { code, report } = await lint('test/unit/planted.test.ts', source);
    expect(report).not.toMatch(/unit tier/);
    expect(code, report).toBe(0);
  });
});
