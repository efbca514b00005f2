/**
 * Colour as docs/cli.md promises: FORCE_COLOR forces it in a pipe too (as Node's own styleText
 * does), FORCE_COLOR=0 turns it off, and otherwise a pipe gets none, NO_COLOR or not. In process
 * for every value, and once through the built bin with stderr a pipe.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { wantsColour } from 'tenant-messaging-bin-kit';
import { describe, expect, it } from 'vitest';

const pipe = new PassThrough() as unknown as NodeJS.WriteStream;
const bin = join(import.meta.dirname, '../../dist/main.js');

describe('colour', () => {
  it.each([
    [{ FORCE_COLOR: '1' }, true],
    [{ FORCE_COLOR: '' }, true],
    [{ FORCE_COLOR: 'true' }, true],
    [{ FORCE_COLOR: '3' }, true],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, true],
    [{ FORCE_COLOR: '0' }, false],
    [{ FORCE_COLOR: 'false' }, false],
    [{ NO_COLOR: '1' }, false],
    [{}, false],
  ])('in a pipe with %j: %s', (env, coloured) => {
    expect(wantsColour(pipe, env)).toBe(coloured);
  });

  it('the built bin with stderr a pipe: coloured with FORCE_COLOR=1, plain without', () => {
    if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
    const run = (extra: Record<string, string>) => {
      const env: Record<string, string | undefined> = { ...process.env, ...extra };
      if (!('FORCE_COLOR' in extra)) delete env['FORCE_COLOR'];
      delete env['NO_COLOR'];
      return spawnSync(process.execPath, [bin, 'get', 'abc'], { env, encoding: 'utf8' });
    };
    const forced = run({ FORCE_COLOR: '1' });
    expect(forced.status).toBe(2);
    expect(forced.stderr).toContain('\x1b[');
    const plain = run({});
    expect(plain.status).toBe(2);
    expect(plain.stderr).toContain('UsageError: ');
    expect(plain.stderr).not.toContain('\x1b[');
  });
});
