/**
 * Test your own code against the SDK's in-process fake of the API: no network, no server, no
 * real tenant. `createSandbox()` behaves like the service (auth, scopes, validation, delivery),
 * and `sandbox.fetch` plugs it into the client.
 *
 *   npx vitest run examples/testing-your-code.test.ts
 */
import { MessagingClient, PermissionDeniedError } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { beforeEach, describe, expect, it } from 'vitest';

/** Your application code: notify a customer and report whether it was confirmed. */
async function notifyShipment(client: MessagingClient, phone: string): Promise<'confirmed' | 'pending'> {
  const log = await client.messages.send({
    sender_phone: '+15550001001',
    to_phone: phone,
    type: 'text',
    content: 'Shipped!',
  });
  try {
    await client.waitForDelivery(log.id, { interval: 50, timeout: 2_000 });
    return 'confirmed';
  } catch {
    return 'pending';
  }
}

const sandbox = createSandbox({ delivery: { deliveredAfterMs: 100, readAfterMs: 200 } });
const { baseUrl, keys } = sandbox.tenants.acme as { baseUrl: string; keys: Record<string, string> };
const client = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch });

describe('notifyShipment', () => {
  beforeEach(() => sandbox.reset());

  it('sends one message and reports confirmation', async () => {
    await expect(notifyShipment(client, SANDBOX_PHONES.reads)).resolves.toBe('confirmed');
    expect(sandbox.messages('acme')).toHaveLength(1);
    expect(sandbox.messages('acme')[0]?.content).toBe('Shipped!');
  });

  it('reports pending when the recipient never confirms', async () => {
    await expect(notifyShipment(client, SANDBOX_PHONES.neverDelivered)).resolves.toBe('pending');
  });

  it('surfaces a key without the send scope', async () => {
    const readOnly = client.withOptions({ apiKey: keys.noSend });
    await expect(notifyShipment(readOnly, SANDBOX_PHONES.reads)).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});
