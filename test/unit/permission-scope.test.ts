/**
 * A 403 names the scope the refused endpoint needs (`PermissionDeniedError.requiredScope`): the
 * service's body does not (spec section 5), the SDK's endpoint table does. Against the in-process
 * sandbox (what a 403 says does not depend on the transport), with its keys that each lack one scope: every scoped method of the client, and
 * `client.request()` to a path of the table (ids in any form) or off it.
 */
import fc from 'fast-check';
import { MessagingClient, PermissionDeniedError, type Scope } from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES, type Sandbox } from 'tenant-messaging/sandbox';
import { beforeAll, describe, expect, it } from 'vitest';

let sandbox: Sandbox;
let tenant: Sandbox['tenants'][string];
/** A log that exists: a missing one is a 404 before any scope is checked (as the Laravel app answers). */
let logId: number;

beforeAll(async () => {
  sandbox = createSandbox();
  tenant = sandbox.tenants['acme'] as Sandbox['tenants'][string];
  const client = new MessagingClient({ baseUrl: tenant.baseUrl, apiKey: tenant.keys.full, fetch: sandbox.fetch });
  const sent = await client.messages.send({
    sender_phone: '+15550001001',
    to_phone: SANDBOX_PHONES.reads,
    type: 'text',
    content: 'Hi',
  });
  logId = sent.id;
  await client.close();
});

const SENDER = '+15550001001';
const clientWith = (key: string) =>
  new MessagingClient({ baseUrl: tenant.baseUrl, apiKey: key, maxRetries: 0, fetch: sandbox.fetch });

/** What `call` rejects with (it must reject). */
async function refusal(call: () => Promise<unknown>): Promise<unknown> {
  return call().then(
    () => {
      throw new Error('the call did not fail');
    },
    (error: unknown) => error,
  );
}

describe('PermissionDeniedError.requiredScope', () => {
  it('names the scope of each scoped method the key lacks', async () => {
    const cases: [
      role: 'noSend' | 'noRead' | 'noLookup' | 'noUsage',
      scope: Scope,
      call: (c: MessagingClient) => Promise<unknown>,
    ][] = [
      [
        'noSend',
        'messages.send',
        (c) => c.messages.send({ sender_phone: SENDER, to_phone: SANDBOX_PHONES.reads, type: 'text', content: 'Hi' }),
      ],
      ['noRead', 'messages.read', (c) => c.messages.get(logId)],
      ['noRead', 'messages.read', async (c) => await c.messages.list()],
      ['noLookup', 'contacts.lookup', (c) => c.contacts.lookup({ phone: SANDBOX_PHONES.reads, sender_phone: SENDER })],
      ['noUsage', 'usage.read', (c) => c.usage()],
    ];
    for (const [role, scope, call] of cases) {
      const client = clientWith(tenant.keys[role]);
      try {
        const error = await refusal(() => call(client));
        expect(error, `${role}: ${scope}`).toBeInstanceOf(PermissionDeniedError);
        expect((error as PermissionDeniedError).requiredScope).toBe(scope);
      } finally {
        await client.close();
      }
    }
  });

  it('names it for client.request() to a path of the table: one log or the list, any page', async () => {
    const client = clientWith(tenant.keys.noRead);
    try {
      await fc.assert(
        fc.asyncProperty(fc.boolean(), fc.option(fc.integer({ min: 1, max: 2 ** 40 })), async (one, page) => {
          const path = one ? `/messages/${logId}` : '/messages';
          const query = page === null ? {} : { page };
          const error = await refusal(() => client.request({ method: 'GET', path, query }));
          expect(error, path).toBeInstanceOf(PermissionDeniedError);
          expect((error as PermissionDeniedError).requiredScope).toBe('messages.read');
        }),
        { numRuns: 20 },
      );
    } finally {
      await client.close();
    }
  });

  it('is undefined for a 403 of a path off the table', async () => {
    // A server that refuses everything with 403: the SDK knows no scope for a path it has no row for.
    const client = new MessagingClient({
      baseUrl: 'https://acme.example.com',
      apiKey: 'tm_test_key',
      maxRetries: 0,
      fetch: async () => new Response('{"message":"Forbidden."}', { status: 403 }),
    });
    const error = await refusal(() => client.request({ method: 'GET', path: '/reports/7' }));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).requiredScope).toBeUndefined();
    const hand = new PermissionDeniedError(403, 'x', {}, {});
    expect(hand.requiredScope).toBeUndefined();
  });
});
