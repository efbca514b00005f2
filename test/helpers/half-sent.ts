import { request } from 'node:http';

/**
 * A send to a sandbox tenant's `base` URL left in flight: its headers and the first bytes of its
 * body written, then a second request answered, which a one-process server answers only after it
 * read the first one's headers. `finish()` writes the rest; `answer` is the status, or the code
 * of the error that cut it (`ECONNRESET`, `socket hang up`).
 *
 * @example
 * ```ts
 * const { answer, finish } = await halfSent(sandbox.tenants.acme.baseUrl)
 * ```
 */
export async function halfSent(base: string): Promise<{ answer: Promise<number | string>; finish: () => void }> {
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
  await (await fetch(`${base}/api/v1/me`, { headers: { 'x-api-key': 'tm_test_acme_full' } })).text();
  return { answer, finish: () => sending.end(body.slice(10)) };
}
