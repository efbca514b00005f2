/**
 * `RunningSandbox.close({ drainMs })`: the requests in flight are answered before their sockets
 * close (for `drainMs` at most); without it every socket is cut at once, as before. A drain that
 * is not a whole number of ms from 0 to 2^31 - 1 is a ValidationError naming it.
 */
import { ValidationError } from 'tenant-messaging';
import { startSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { halfSent } from '../../helpers/half-sent.js';

describe('RunningSandbox.close()', () => {
  it('with drainMs, answers a request in flight, then closes', async () => {
    const sandbox = await startSandbox();
    const { answer, finish } = await halfSent(sandbox.tenants.acme.baseUrl);
    const closed = sandbox.close({ drainMs: 20_000 });
    finish();
    expect(await answer).toBe(201);
    await closed;
  });

  it('without, cuts it at once', async () => {
    const sandbox = await startSandbox();
    const { answer } = await halfSent(sandbox.tenants.acme.baseUrl);
    await sandbox.close();
    expect(await answer).toMatch(/ECONNRESET|socket hang up/);
  });

  it.each([-1, 1.5, Number.NaN, 2 ** 31, '5'])('refuses drainMs %j, naming it', async (drainMs) => {
    const sandbox = await startSandbox();
    try {
      const refused = await sandbox.close({ drainMs: drainMs as number }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).field).toBe('drainMs');
    } finally {
      await sandbox.close();
    }
  });
});
