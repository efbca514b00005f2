import {
  AuthenticationError,
  MessagingClient,
  NotFoundError,
  PermissionDeniedError,
  UnprocessableEntityError,
} from 'tenant-messaging';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PNG, TRANSPORTS } from './transports.js';

const ACME_SENDER = '+15550001001';
const ACME_PENDING = '+15550001003';
const text = (content = 'Hello') =>
  ({ sender_phone: ACME_SENDER, to_phone: SANDBOX_PHONES.reads, type: 'text', content }) as const;

/** The error a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('expected a rejection'),
    (error: unknown) => error,
  );
}

// Why a retry over msw only: msw 3's socket-level interception once (CI, Node 22, under load) handed
// the sandbox a multipart send without its fields (a 422 for every field); it never reproduced in
// hundreds of local runs. Over a real server and over the sandbox's own fetch, a test fails at once.
for (const name of Object.keys(TRANSPORTS) as (keyof typeof TRANSPORTS)[])
  describe(`the sandbox over ${name}`, { retry: name === 'msw' ? 2 : 0 }, () => {
    let h: Harness;
    let client: MessagingClient;
    beforeAll(async () => {
      // A page of 2 (the application's `->paginate(2)`), so a few sends make several pages.
      h = await TRANSPORTS[name]({ pageSize: 2 });
      client = h.client();
    });
    afterAll(() => h.close());

    it('GET /me names the tenant and the key', async () => {
      const me = await client.me();
      expect(me).toMatchObject({ tenant: { slug: 'acme', name: 'Acme Corp' }, environment: 'sandbox' });
      expect(me['api_key']).toMatchObject({
        scopes: ['messages.send', 'messages.read', 'contacts.lookup', 'usage.read'],
      });
    });

    it('GET /subscription and GET /sender-numbers answer any active key', async () => {
      const limited = h.client('acme', 'noUsage');
      expect(await limited.subscription()).toMatchObject({ status: 'active', plan: { code: 'growth' } });
      const numbers = await h.client('acme', 'noRead').senderNumbers.list();
      expect(numbers.map((n) => [n['phone'], n['status']])).toEqual([
        [ACME_SENDER, 'active'],
        ['+15550001002', 'active'],
        [ACME_PENDING, 'pending_account_verification'],
      ]);
    });

    it('GET /contacts/lookup says whether a phone is reachable, and 422s without its parameters', async () => {
      expect(await client.contacts.lookup({ phone: SANDBOX_PHONES.reads, sender_phone: ACME_SENDER })).toMatchObject({
        reachable: true,
      });
      expect(
        await client.contacts.lookup({ phone: SANDBOX_PHONES.unreachable, sender_phone: ACME_SENDER }),
      ).toMatchObject({ reachable: false });
      const res = await h.sandbox.handle(
        new Request(`${h.sandbox.tenants['acme']?.baseUrl}/api/v1/contacts/lookup`, {
          headers: { accept: 'application/json', 'x-api-key': 'tm_test_acme_full' },
        }),
      );
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        message: 'The phone field is required. (and 1 more error)',
        errors: { phone: ['The phone field is required.'], sender_phone: ['The sender phone field is required.'] },
      });
    });

    it('POST /messages stores a text and answers 201 with a MessageLog the SDK schema accepts', async () => {
      const log = await client.messages.send(text('Hi there'));
      expect(log).toMatchObject({
        sender_number_id: 1,
        message_type: 'text',
        content: 'Hi there',
        status: 'sent',
        delivery_status: 'sent',
        request_payload: {
          sender_phone: ACME_SENDER,
          to_phone: SANDBOX_PHONES.reads,
          type: 'text',
          content: 'Hi there',
        },
        response_payload: { media_url: null },
      });
      expect(log.sent_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect(log.response_payload.message_id).toBe(log.message_id);
      expect(await client.messages.get(log.id)).toMatchObject({ id: log.id, content: 'Hi there' });
    });

    it('media round trip: the bytes uploaded are the bytes served at media_url, without a key', async () => {
      const log = await client.messages.send({
        sender_number_id: 2,
        to_phone: SANDBOX_PHONES.reads,
        type: 'image',
        content: 'A pixel',
        media: { data: PNG, filename: 'pixel.png' },
      });
      expect(log).toMatchObject({ message_type: 'image', content: 'A pixel', sender_number_id: 2 });
      expect(log.request_payload).toMatchObject({
        media: { original_name: 'pixel.png', mime_type: 'image/png', size: PNG.length },
      });
      const mediaUrl = log.response_payload.media_url ?? '';
      expect(mediaUrl.startsWith(`${h.sandbox.tenants['acme']?.baseUrl}/media/`)).toBe(true);
      const upload = h.sandbox.uploads.at(-1);
      expect(upload).toMatchObject({ tenant: 'acme', logId: log.id, filename: 'pixel.png', contentType: 'image/png' });
      expect(Buffer.from(upload?.bytes ?? []).equals(Buffer.from(PNG))).toBe(true);
      const served = await (name === 'server' ? fetch(mediaUrl) : h.sandbox.fetch(mediaUrl));
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(PNG))).toBe(true);
    });

    it('401 and 403 carry exactly the specification messages', async () => {
      const noKey = await h.sandbox.handle(
        new Request(`${h.sandbox.tenants['acme']?.baseUrl}/api/v1/me`, { headers: { accept: 'application/json' } }),
      );
      expect([noKey.status, await noKey.json()]).toEqual([401, { message: 'Unauthenticated.' }]);
      // Every 401 says `Unauthenticated.`, as Laravel's AuthenticationException does, whatever the reason.
      for (const role of ['expired', 'revoked'] as const) {
        const error = await failure(h.client('acme', role).me());
        expect(error).toBeInstanceOf(AuthenticationError);
        expect((error as AuthenticationError).serverMessage).toBe('Unauthenticated.');
      }
      const wrongTenant = new MessagingClient({
        baseUrl: h.sandbox.tenants['globex']?.baseUrl,
        apiKey: h.sandbox.tenants['acme']?.keys.full,
        ...(name === 'server' ? {} : { fetch: name === 'msw' ? globalThis.fetch : h.sandbox.fetch }),
      });
      expect(await failure(wrongTenant.me())).toMatchObject({ status: 401, serverMessage: 'Unauthenticated.' });
      const scoped = [
        ['noSend', () => h.client('acme', 'noSend').messages.send(text())],
        ['noRead', () => h.client('acme', 'noRead').messages.list()],
        ['noRead', () => h.client('acme', 'noRead').messages.get(1)],
        [
          'noLookup',
          () => h.client('acme', 'noLookup').contacts.lookup({ phone: '+15551234567', sender_phone: ACME_SENDER }),
        ],
        ['noUsage', () => h.client('acme', 'noUsage').usage()],
      ] as const;
      for (const [, call] of scoped) {
        const error = await failure(Promise.resolve(call()));
        expect(error).toBeInstanceOf(PermissionDeniedError);
        expect((error as PermissionDeniedError).serverMessage).toBe('The API key does not include the required scope.');
      }
    });

    it('a log of another tenant, an unknown id or a message_id is a 404 with a message', async () => {
      const log = await client.messages.send(text());
      const globex = h.client('globex');
      const error = await failure(globex.messages.get(log.id));
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as NotFoundError).serverMessage).toMatch(/No query results/);
      await expect(client.messages.get(log.message_id ?? 0)).rejects.toBeInstanceOf(NotFoundError);
      const path = await h.sandbox.handle(
        new Request(`${h.sandbox.tenants['acme']?.baseUrl}/api/v1/nope`, {
          headers: { accept: 'application/json', 'x-api-key': 'tm_test_acme_full' },
        }),
      );
      expect([path.status, await path.json()]).toEqual([
        404,
        { message: 'The route t/acme/api/v1/nope could not be found.' },
      ]);
      const method = await h.sandbox.handle(
        new Request(`${h.sandbox.tenants['acme']?.baseUrl}/api/v1/me`, { method: 'POST' }),
      );
      expect(method.status).toBe(405);
    });

    it('422s in Laravel wording, counted in the top-level message; nothing refused is stored', async () => {
      const before = h.sandbox.messages('acme').length;
      const post = (body: unknown) =>
        h.sandbox.handle(
          new Request(`${h.sandbox.tenants['acme']?.baseUrl}/api/v1/messages`, {
            method: 'POST',
            headers: {
              accept: 'application/json',
              'x-api-key': 'tm_test_acme_full',
              'content-type': 'application/json',
            },
            body: JSON.stringify(body),
          }),
        );
      const res = await post({ sender_phone: ACME_SENDER, type: 'text' });
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({
        message: 'The to phone field is required. (and 1 more error)',
        errors: {
          to_phone: ['The to phone field is required.'],
          content: ['The content field is required when type is text.'],
        },
      });
      expect(await (await post({ to_phone: '+15551234567', type: 'fax', content: 'x' })).json()).toEqual({
        message: 'The sender phone field is required when sender number id is not present. (and 2 more errors)',
        errors: {
          sender_phone: ['The sender phone field is required when sender number id is not present.'],
          sender_number_id: ['The sender number id field is required when sender phone is not present.'],
          type: ['The selected type is invalid.'],
        },
      });
      expect(await (await post({ sender_phone: ACME_SENDER, to_phone: '+15551234567', type: 'image' })).json()).toEqual(
        {
          message: 'The media field is required when type is image.',
          errors: { media: ['The media field is required when type is image.'] },
        },
      );
      const pending = await failure(client.messages.send({ ...text(), sender_phone: ACME_PENDING }));
      expect(pending).toBeInstanceOf(UnprocessableEntityError);
      expect((pending as UnprocessableEntityError).errors['sender_phone']?.[0]).toMatch(/pending_account_verification/);
      const unreachable = await failure(client.messages.send({ ...text(), to_phone: SANDBOX_PHONES.unreachable }));
      expect((unreachable as UnprocessableEntityError).errors).toEqual({
        to_phone: ['The recipient cannot receive messages.'],
      });
      expect(h.sandbox.messages('acme')).toHaveLength(before);
    });

    it('GET /messages pages newest first in the Laravel resource envelope, ignoring per_page as Laravel does', async () => {
      // Three logs of its own: the test does not depend on what the tests before it stored.
      for (const content of ['p1', 'p2', 'p3']) await client.messages.send(text(content));
      const other = h.client('globex');
      await other.messages.send({
        sender_phone: '+15550002001',
        to_phone: SANDBOX_PHONES.reads,
        type: 'text',
        content: 'g',
      });
      const stored = h.sandbox.messages('acme');
      const page = await client.messages.list({ per_page: 2 });
      expect(page.data.map((l) => l.id)).toEqual(
        stored
          .slice(-2)
          .reverse()
          .map((l) => l.id),
      );
      expect(page.meta).toMatchObject({ current_page: 1, per_page: 2, total: stored.length, from: 1, to: 2 });
      expect(page.meta?.['path']).toMatch(/\/t\/acme\/api\/v1\/messages$/);
      expect(page.links?.next).toMatch(/\?page=2$/);
      const all: number[] = [];
      for await (const log of client.messages.list({ per_page: 1 })) all.push(log.id);
      expect(all).toEqual(stored.map((l) => l.id).reverse());
      const wide = await client.messages.list({ per_page: 50 });
      expect([wide.data.length, wide.meta?.per_page, wide.links?.next]).toEqual([
        2,
        2,
        expect.stringMatching(/\?page=2$/),
      ]);
    });

    it('GET /usage counts what was really sent', async () => {
      const usage = await client.usage();
      const sent = h.sandbox.messages('acme').length;
      expect(usage).toMatchObject({ messages: { sent, limit: 1000, remaining: 1000 - sent } });
      expect(h.sandbox.counters.sendsStored).toBe(sent + h.sandbox.messages('globex').length);
    });
  });
