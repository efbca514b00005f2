/**
 * `tenant-messaging --version` (and `-V`): the package's version on stdout and nothing else, exit
 * 0, wherever it stands among the global options, the same as the SDK's (released in lockstep):
 * what a bug report and an MCP client ask for first.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const bin = join(import.meta.dirname, '../../dist/main.js');
const versionOf = (manifest: string) => (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
const cli = versionOf(join(import.meta.dirname, '../../package.json'));
const sdk = versionOf(join(import.meta.dirname, '../../../../package.json'));

beforeAll(() => {
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
});

describe('tenant-messaging --version', () => {
  it.each([['--version'], ['-V'], ['--json', '--version'], ['--verbose', '-V']])(
    '%s prints the version alone and exits 0',
    async (...args) => {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
        timeout: 30_000,
        env: { ...process.env, TENANT_MESSAGING_API_KEY: '', TENANT_MESSAGING_BASE_URL: '' },
      });
      expect(stdout).toBe(`${cli}\n`);
      expect(stderr).toBe('');
    },
  );

  it('is the version of the SDK it was built with', () => {
    expect(cli).toBe(sdk);
  });
});
