/**
 * The runners vitest cannot stand in for, run as users run them, on the package imported by its
 * name from the build: node:test (`mock.timers`) and jest (its default fake timers), each on the
 * simulated hour and on docs/testing.md's example for that runner. One process per runner.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { root } from '../../helpers/npm.js';

const run = promisify(execFile);

/** Runs a command in the project; what it printed. */
async function runner(args: string[]) {
  const { stdout, stderr } = await run(process.execPath, args, {
    cwd: root,
    timeout: 30_000,
    env: { ...process.env, CI: 'true' },
  });
  return { output: stdout + stderr };
}

/** The simulated hour's figures, as the hour file printed them. */
function hourOf(output: string, label: string) {
  const line = output.split('\n').find((text) => text.includes(`${label}: {`));
  if (!line) throw new Error(`no figures for ${label} in:\n${output}`);
  return JSON.parse(line.slice(line.indexOf('{'))) as {
    fakeMinutes: number;
    requests: Record<string, number>;
  };
}

describe('fake timers of the runners vitest cannot stand in for', () => {
  beforeAll(() => {
    if (!existsSync(join(root, 'dist/index.cjs'))) throw new Error('run `npm run build` first (npm test does)');
  });

  it('node:test mock.timers: the simulated hour, and the example', async () => {
    const { output } = await runner([
      '--test',
      '--test-reporter=spec',
      'test/integration/fake-timers/hour.node-test.mjs',
      'examples/testing/node-test.ts',
    ]);
    expect(output).toMatch(/ℹ pass 4\n/);
    expect(output).toMatch(/ℹ fail 0\n/);
    const hour = hourOf(output, 'node:test mock.timers');
    expect(hour.fakeMinutes).toBe(60);
    expect(hour.requests['POST /messages']).toBe(9);
  });

  it('jest fake timers: the simulated hour, and the example', async () => {
    const { output } = await runner([
      'node_modules/jest/bin/jest.js',
      '--rootDir',
      '.',
      '--testMatch',
      '**/test/integration/fake-timers/hour.jest.cjs',
      '**/examples/testing/jest.test.cjs',
    ]);
    expect(output).toMatch(/Tests: {7}4 passed, 4 total/);
    const hour = hourOf(output, 'jest fake timers');
    expect(hour.fakeMinutes).toBe(60);
    expect(hour.requests['POST /messages']).toBe(9);
  });
});
