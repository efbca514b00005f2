/**
 * The built entries load their optional peers (bullmq; msw for tenant-messaging/testing) from
 * their own location in each build, whatever globals the host defines: `node -e` (and bundlers'
 * shims) define a global `__filename` that is not this module's file, and the ES module build
 * must not take it for its own. Runs the built package: `npm run build` first.
 */
import { execFileSync, execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const esm = pathToFileURL(`${root}dist/bullmq/index.js`).href;
const cjs = `${root}dist/bullmq/index.cjs`;

beforeAll(() => {
  if (!existsSync(`${root}dist/bullmq/index.js`)) execSync('npm run build', { cwd: root, stdio: 'ignore' });
}, 60_000);

/** Runs `node <args>` from a directory with no node_modules, and returns what it printed. */
const run = (...args: string[]) =>
  execFileSync(process.execPath, args, { cwd: tmpdir(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

const print = `(m) => console.log(typeof m.MessagingQueue, typeof m.MessagingWorker)`;

/** The ES module build imported by the two kinds of host whose global `__filename` is not its own. */
function esmHosts(url: string, then: string): [string, string[]][] {
  const load = `import(${JSON.stringify(url)}).then(${then})`;
  return [
    ['node -e (a global __filename of "[eval]")', ['-e', load]],
    [
      'an ES module host that defines a global __filename elsewhere',
      ['--input-type=module', '-e', `globalThis.__filename = '/nowhere/index.js'; ${load}`],
    ],
  ];
}

describe('loading bullmq from the built entry', () => {
  it.each([
    ...esmHosts(esm, print),
    ['the CommonJS build from node -e', ['-e', `Promise.resolve(require(${JSON.stringify(cjs)})).then(${print})`]],
  ])('%s', (_, args) => {
    expect(run(...args)).toBe('function function');
  });
});

describe('loading msw from the built tenant-messaging/testing entry', () => {
  const testingEsm = pathToFileURL(`${root}dist/testing.js`).href;
  // The entry holds only sandboxHandlers: a sandbox-shaped object is all it reads.
  const handlers = `(m) => console.log(m.sandboxHandlers({ origin: 'https://sandbox.test', handle: async () => new Response() }).length > 0)`;
  it.each(esmHosts(testingEsm, handlers))('%s', (_, args) => {
    expect(run(...args)).toBe('true');
  });
});
