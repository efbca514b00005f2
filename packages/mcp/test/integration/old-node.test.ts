/**
 * The MCP bin's stderr when it is redirected: plain text (no colour codes, NO_COLOR or not, unless
 * FORCE_COLOR asks), on this Node and on a system Node 20 (below `engines`), where the bin also
 * says once which Node.js it found and which it needs. Node 20's own styleText ignored both its
 * stream and NO_COLOR.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIN } from './bin-fixture.js';

/** Runs the bin with no credentials (a usage error, exit 2) on `node`, stderr a pipe. */
function refused(node: string, extra: Record<string, string>) {
  const env: Record<string, string | undefined> = { ...process.env, ...extra };
  for (const name of ['NO_COLOR', 'FORCE_COLOR', 'TENANT_MESSAGING_BASE_URL', 'TENANT_MESSAGING_API_KEY'])
    if (!(name in extra)) delete env[name];
  return spawnSync(node, [BIN], { env, encoding: 'utf8', input: '', timeout: 20_000 });
}

const node20 = ['/usr/bin/node', '/usr/local/bin/node'].find(
  (path) => existsSync(path) && /^v20\./.test(spawnSync(path, ['-v'], { encoding: 'utf8' }).stdout),
);

describe('tenant-messaging-mcp, stderr redirected', () => {
  it('plain on this Node, NO_COLOR or not; coloured with FORCE_COLOR=1; no warning', () => {
    if (!existsSync(BIN)) throw new Error('run `npm run build` first (npm test does)');
    for (const extra of [{ NO_COLOR: '1' }, {}]) {
      const run = refused(process.execPath, extra);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^UsageError: Missing credentials/);
      expect(run.stderr).not.toContain('\x1b[');
    }
    expect(refused(process.execPath, { FORCE_COLOR: '1' }).stderr).toContain('\x1b[');
  });

  it.skipIf(node20 === undefined)('on Node 20: plain, NO_COLOR or not, and the versions found and needed named', () => {
    for (const extra of [{ NO_COLOR: '1' }, {}]) {
      const run = refused(node20 as string, extra);
      expect(run.status).toBe(2);
      expect(run.stderr).not.toContain('\x1b[');
      const [first, second] = run.stderr.split('\n');
      expect(first).toMatch(
        /^tenant-messaging-mcp: Node\.js 20\.\d+\.\d+ is older than the 22\.19 this command requires; .* Install Node\.js 22\.19 or later\.$/,
      );
      expect(second).toMatch(/^UsageError: Missing credentials/);
    }
  });
});
