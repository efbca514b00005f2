/**
 * `RunningSandbox.close({ drainMs })`: the requests in flight are answered before their sockets
 * close (for `drainMs` at most); without it every socket is cut at once, as before. A drain that
 * is not a whole number of ms from 0 to 2^31 - 1 is a ValidationError naming it.
 */
import { request } from 'node:http';
import { ValidationError } from 'tenant-messaging';
import { startSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';

/** A POST to `base` with its headers and the first bytes of its body sent; `finish` sends the rest. */
async function halfSent(base: string) {
  const body = JSON.stringify({ sender_phone: '+15550001001', to_phone: '+15551230001', type: 'text', content: 'Hi' });
  const sending = request(`${base}/api/v1/messages`, {
    method: 'POST',
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-api-key': 'tm_test_acme_full',
    },
  });
  const answer = new Promise<number | string>((resolve) => {
    sending.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    sending.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
  await new Promise<void>((resolve) => sending.write(body.slice(0, 10), () => resolve()));
  // Answered only once the request above was read: the sandbox has it in flight.
  await (await fetch(`${base}/api/v1/me`, { headers: { 'x-api-key': 'tm_test_acme_full' } })).text();
  return { answer, finish: () => sending.end(body.slice(10)) };
}

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
