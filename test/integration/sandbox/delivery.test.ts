import { MessagingClient } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';

const T0 = Date.parse('2026-11-21T10:00:00Z');

function clocked(options: { deliveredAfterMs?: number; readAfterMs?: number } = {}) {
  const clock = { now: T0 };
  const sandbox = createSandbox({ now: () => clock.now, delivery: options });
  const { baseUrl, keys } = sandbox.tenants['acme'] ?? expect.unreachable();
  const client = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch, maxRetries: 0 });
  const send = (to_phone: string) =>
    client.messages.send({ sender_phone: '+15550001001', to_phone, type: 'text', content: 'Hi' });
  return { clock, sandbox, client, send };
}

describe('delivery simulation', () => {
  it('goes sent -> delivered -> read on the default delays, computed from the clock', async () => {
    const { clock, client, send } = clocked();
    const log = await send(SANDBOX_PHONES.reads);
    expect(log.sent_at).toBe('2026-11-21T10:00:00.000000Z');
    const at = async (ms: number) => {
      clock.now = T0 + ms;
      return (await client.messages.get(log.id)).delivery_status;
    };
    expect([await at(0), await at(299), await at(300), await at(899), await at(900), await at(60_000)]).toEqual([
      'sent',
      'sent',
      'delivered',
      'delivered',
      'read',
      'read',
    ]);
  });

  it('phones ending in 9 never read, phones ending in 8 are never confirmed delivered', async () => {
    const { clock, client, send } = clocked();
    const neverReads = await send(SANDBOX_PHONES.neverReads);
    const neverDelivered = await send(SANDBOX_PHONES.neverDelivered);
    clock.now = T0 + 3_600_000;
    expect((await client.messages.get(neverReads.id)).delivery_status).toBe('delivered');
    expect((await client.messages.get(neverDelivered.id)).delivery_status).toBe('sent');
  });

  it('a deleted underlying message reads unknown with 200; setDeliveryStatus pins a state', async () => {
    const { sandbox, client, send } = clocked();
    const a = await send(SANDBOX_PHONES.reads);
    const b = await send(SANDBOX_PHONES.reads);
    sandbox.deleteUnderlyingMessage('acme', a.id);
    sandbox.setDeliveryStatus('acme', b.id, 'read');
    expect((await client.messages.get(a.id)).delivery_status).toBe('unknown');
    expect((await client.messages.get(b.id)).delivery_status).toBe('read');
    expect((await client.messages.list()).data.map((l) => l.delivery_status)).toEqual(['read', 'unknown']);
    expect(() => sandbox.setDeliveryStatus('acme', 999, 'read')).toThrow(/no message log 999/);
    expect(() => sandbox.setDeliveryStatus('acme', a.id, 'lost')).toThrow(/must be one of/);
    expect(() => sandbox.messages('nobody')).toThrow(/Known: acme, globex/);
  });

  it('waitForDelivery over a real server sees every step on short delays', async () => {
    const sandbox = await startSandbox({ delivery: { deliveredAfterMs: 60, readAfterMs: 150 } });
    const { baseUrl, keys } = sandbox.tenants['acme'] ?? expect.unreachable();
    const client = new MessagingClient({ baseUrl, apiKey: keys.full });
    try {
      const log = await client.messages.send({
        sender_phone: '+15550001001',
        to_phone: SANDBOX_PHONES.reads,
        type: 'text',
        content: 'Track me',
      });
      const seen: string[] = [];
      const done = await client.waitForDelivery(log.id, {
        until: 'read',
        interval: 25,
        timeout: 5_000,
        onUpdate: (l) => seen.push(l.delivery_status),
      });
      expect(done.delivery_status).toBe('read');
      expect(seen).toContain('delivered');
    } finally {
      await client.close();
      await sandbox.close();
    }
  });

  it('usage counts sends; a send over the limit is refused with 422 and not stored', async () => {
    const { sandbox, client, send } = clocked();
    sandbox.setMessageLimit('acme', 2);
    await send(SANDBOX_PHONES.reads);
    await send(SANDBOX_PHONES.reads);
    await expect(send(SANDBOX_PHONES.reads)).rejects.toMatchObject({
      status: 422,
      serverMessage: expect.stringMatching(/message limit of your plan \(2 per period\)/),
    });
    expect(sandbox.messages('acme')).toHaveLength(2);
    expect(await client.usage()).toMatchObject({ messages: { sent: 2, limit: 2, remaining: 0 } });
    sandbox.reset();
    expect(sandbox.messages('acme')).toHaveLength(0);
    expect(sandbox.counters).toEqual({ requests: {}, sendsStored: 0 });
  });
});
