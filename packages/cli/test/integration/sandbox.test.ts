import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

// The command as users get it: the package's `bin`, from the build (`npm test` builds first).
const outfile = join(import.meta.dirname, '../../dist/main.js');

/**
 * Runs the CLI; resolves with its output once `until` appears (or it exits). With the sandbox's
 * key already exported, as after a first run: the bin redacts the secrets of its environment from
 * what it writes, but not the sandbox's keys it prints to be exported.
 */
function run(args: string[], until: RegExp) {
  const env = { ...process.env, TENANT_MESSAGING_API_KEY: 'tm_test_acme_full' };
  const child = spawn(process.execPath, [outfile, 'sandbox', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (until.test(output)) resolve(output);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => resolve(output));
  });
  return { child, ready, exited, output: () => output };
}

describe('tenant-messaging sandbox', () => {
  beforeAll(() => {
    if (!existsSync(outfile)) throw new Error('run `npm run build` first (npm test does)');
  });

  it('prints each tenant base URL and keys, serves them, and stops cleanly on SIGINT', async () => {
    const cli = run(['--port', '0'], /Press Ctrl-C/);
    const output = await cli.ready;
    // Ready to paste: the base URL and the key, as the variables the commands read.
    expect(output).toMatch(
      /^ {2}export TENANT_MESSAGING_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/t\/acme TENANT_MESSAGING_API_KEY=tm_test_acme_full$/m,
    );
    expect(output).toMatch(/full\s+tm_test_acme_full/);
    expect(output).toMatch(/TENANT_MESSAGING_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/t\/globex/);
    expect(output).toMatch(/pending_account_verification/);
    const base = /TENANT_MESSAGING_BASE_URL=(\S+\/t\/acme)/.exec(output)?.[1];
    const me = await fetch(`${base}/api/v1/me`, { headers: { 'x-api-key': 'tm_test_acme_full' } });
    expect(me.status).toBe(200);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toMatch(/SIGINT: stopping the sandbox/);
  });

  it('stops on SIGTERM too, and refuses a bad --port', async () => {
    const cli = run([], /Press Ctrl-C/);
    await cli.ready;
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    // Decimal digits only: 0x50 would have listened on 80, 1e3 on 1000.
    for (const port of ['abc', '0x50', '1e3']) {
      const bad = run(['--port', port], /never/);
      expect(await bad.exited).toBe(2);
      expect(bad.output()).toMatch(/--port must be a port number from 0 to 65535 in decimal digits/);
    }
  });

  it('--rate-limit N/s or N/min sets the limit per API key; a bad value is refused', async () => {
    const cli = run(['--rate-limit', '1/min'], /Press Ctrl-C/);
    const output = await cli.ready;
    expect(output).toMatch(/Rate limit: 1 per minute per key/);
    const base = /TENANT_MESSAGING_BASE_URL=(\S+\/t\/acme)/.exec(output)?.[1];
    const get = () => fetch(`${base}/api/v1/me`, { headers: { 'x-api-key': 'tm_test_acme_full' } });
    expect((await get()).status).toBe(200);
    const limited = await get();
    expect([limited.status, limited.headers.get('x-ratelimit-limit')]).toEqual([429, '1']);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    const perSecond = run(['--rate-limit', '100/s'], /Press Ctrl-C/);
    expect(await perSecond.ready).toMatch(/Rate limit: 100 per second per key/);
    perSecond.child.kill('SIGINT');
    expect(await perSecond.exited).toBe(0);
    const bad = run(['--rate-limit', 'fast'], /never/);
    expect(await bad.exited).toBe(2);
    expect(bad.output()).toMatch(/--rate-limit must look like 100\/s or 60\/min/);
  });

  it('--sender-limit N and --pair-interval MS set the lanes of POST /messages; a bad value is refused', async () => {
    const cli = run(['--sender-limit', '2', '--pair-interval', '60000'], /Press Ctrl-C/);
    const output = await cli.ready;
    expect(output).toMatch(
      /Lanes: 2 sends per second per sender number; 1 send per 60000 ms per sender number and recipient/,
    );
    const base = /TENANT_MESSAGING_BASE_URL=(\S+\/t\/acme)/.exec(output)?.[1];
    const send = (to: string) =>
      fetch(`${base}/api/v1/messages`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', 'x-api-key': 'tm_test_acme_full' },
        body: JSON.stringify({ sender_phone: '+15550001001', to_phone: to, type: 'text', content: 'Hi' }),
      });
    expect((await send('+15551230001')).status).toBe(201);
    const pair = await send('+15551230001');
    expect([pair.status, pair.headers.get('x-ratelimit-limit'), pair.headers.get('retry-after')]).toEqual([
      429,
      '1',
      '60',
    ]);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    const off = run([], /Press Ctrl-C/);
    expect(await off.ready).toMatch(/Lanes: off/);
    off.child.kill('SIGINT');
    expect(await off.exited).toBe(0);
    const bad = run(['--pair-interval', '1.5'], /never/);
    expect(await bad.exited).toBe(2);
    expect(bad.output()).toMatch(/--pair-interval must be a whole number >= 1, got '1\.5'/);
  });
});
