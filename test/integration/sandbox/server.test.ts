import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MessagingClient } from 'tenant-messaging';
import { startSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { until } from '../../helpers/until.js';

/** Open sockets and servers of this process, by kind. */
function openHandles(): { sockets: number; servers: number } {
  const info = process.getActiveResourcesInfo();
  return {
    sockets: info.filter((kind) => kind === 'TCPSocketWrap').length,
    servers: info.filter((kind) => kind === 'TCPServerWrap').length,
  };
}

describe('startSandbox', () => {
  it('listens on 127.0.0.1 with one base URL per tenant and deterministic keys', async () => {
    const sandbox = await startSandbox();
    try {
      expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(Object.keys(sandbox.tenants)).toEqual(['acme', 'globex']);
      expect(sandbox.tenants['acme']).toMatchObject({
        baseUrl: `${sandbox.url}/t/acme`,
        keys: {
          full: 'tm_test_acme_full',
          noSend: 'tm_test_acme_no_send',
          noRead: 'tm_test_acme_no_read',
          noLookup: 'tm_test_acme_no_lookup',
          noUsage: 'tm_test_acme_no_usage',
          expired: 'tm_test_acme_expired',
          revoked: 'tm_test_acme_revoked',
        },
      });
      const custom = await startSandbox({
        tenants: [{ slug: 'initech', keys: { full: 'my-key' } }],
        keyPrefix: 'tm_live',
      });
      expect(custom.tenants['initech']?.keys).toMatchObject({ full: 'my-key', noSend: 'tm_live_initech_no_send' });
      expect(custom.tenants['initech']?.senderNumbers.map((n) => n.status)).toEqual([
        'active',
        'active',
        'pending_account_verification',
      ]);
      await custom.close();
    } finally {
      await sandbox.close();
    }
  });

  // At once: a close that waited for the idle keep-alive sockets to time out (5 s, Node's
  // server.keepAliveTimeout) would outlast this test's timeout. No bound nearer than that.
  it('close() destroys keep-alive sockets at once and leaves no open handle', { timeout: 4_500 }, async () => {
    // Earlier tests' sockets, destroyed, close in the loop's close phase: one whole turn of it.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const before = openHandles();
    const sandbox = await startSandbox();
    const { baseUrl, keys } = sandbox.tenants['acme'] ?? expect.unreachable();
    const client = new MessagingClient({ baseUrl, apiKey: keys.full });
    await Promise.all([client.me(), client.subscription(), client.usage()]);
    expect(openHandles().sockets).toBeGreaterThan(before.sockets);
    await sandbox.close();
    await client.close();
    await until(
      () => JSON.stringify(openHandles()) === JSON.stringify(before),
      () => `open: ${JSON.stringify(openHandles())}, before: ${JSON.stringify(before)}`,
      // Within the test's timeout, so that a handle left open fails with the counts below.
      { timeoutMs: 3_000 },
    ).catch(() => undefined);
    expect(openHandles()).toEqual(before);
    await sandbox.close(); // a second close is harmless
  });

  it('serves HEAD-less 404s for unknown media and refuses a declared body far over the limit', async () => {
    const sandbox = await startSandbox({ maxMediaBytes: 1024 });
    try {
      const json = { accept: 'application/json' };
      const media = await fetch(`${sandbox.url}/t/acme/media/not-a-token`, { headers: json });
      expect([media.status, await media.json()]).toEqual([404, { message: 'Not found.' }]);
      // A browser following a media URL gets Laravel's HTML 404 page.
      const page = await fetch(`${sandbox.url}/t/acme/media/not-a-token`);
      expect([page.status, page.headers.get('content-type')]).toEqual([404, 'text/html; charset=UTF-8']);
      await page.body?.cancel();
      const unknownTenant = await fetch(`${sandbox.url}/t/initech/api/v1/me`);
      expect(unknownTenant.status).toBe(404);
      const big = await fetch(`${sandbox.url}/t/acme/api/v1/messages`, {
        method: 'POST',
        headers: { ...json, 'x-api-key': 'tm_test_acme_full', 'content-type': 'application/octet-stream' },
        body: new Uint8Array(3 * 1024 * 1024),
      });
      expect([big.status, await big.json()]).toEqual([413, { message: 'The POST data is too large.' }]);
      expect(sandbox.counters.requests).toMatchObject({ 'GET /media/{token}': 2, unmatched: 1, 'POST /messages': 1 });
    } finally {
      await sandbox.close();
    }
  });

  it('answers 500 and reports to onError when the handler throws', async () => {
    const errors: unknown[] = [];
    const sandbox = await startSandbox({ now: () => Number.NaN, onError: (e) => errors.push(e) });
    try {
      const res = await fetch(`${sandbox.url}/t/acme/api/v1/me`, { headers: { 'x-api-key': 'tm_test_acme_full' } });
      expect([res.status, await res.json()]).toEqual([500, { message: 'Server Error' }]);
      expect(errors).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });
});

describe('the package boundaries', () => {
  it('only src/testing.ts imports msw: the main and sandbox entries never load it', () => {
    const dir = join(import.meta.dirname, '../../../src/sandbox');
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      expect(readFileSync(join(dir, file), 'utf8'), file).not.toMatch(/from ['"]msw/);
    }
    expect(readFileSync(join(dir, '../testing.ts'), 'utf8')).toMatch(/from 'msw'/);
  });
});
