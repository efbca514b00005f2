/**
 * Property-based tests: whatever a JavaScript caller passes to `send`, `get` or `waitForDelivery`,
 * the SDK answers with a ValidationError before any request, or sends a valid request; never a
 * crash, a TypeError from deep inside, or an unhandled rejection.
 */
import fc from 'fast-check';
import { MessagingClient, MessagingError, ValidationError } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessageParamsSchema } from '../../src/schemas/send.js';
import { messageLog } from '../helpers/fake-service.js';

let requests = 0;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => process.on('unhandledRejection', onUnhandled));
afterAll(() => process.off('unhandledRejection', onUnhandled));

/** An in-process fake: counts requests and answers like the service. */
const fakeFetch = async (_input: string | URL | Request, init?: RequestInit) => {
  requests++;
  if (init?.body instanceof ReadableStream) await new Response(init.body).arrayBuffer();
  const delivered = messageLog({ delivery_status: 'delivered' });
  return Response.json({ data: delivered }, { status: init?.method === 'POST' ? 201 : 200 });
};
const client = new MessagingClient({ baseUrl: 'https://api.test', apiKey: 'k', fetch: fakeFetch, maxRetries: 0 });

const phone = fc.oneof(fc.string(), fc.constantFrom('+15550000001', '  ', ''), fc.integer(), fc.constant(undefined));
const media = fc.oneof(
  fc.constant(undefined),
  fc.constant(new Blob(['x'])),
  fc.uint8Array({ maxLength: 8 }),
  fc.record({ data: fc.uint8Array({ maxLength: 8 }), filename: fc.oneof(fc.string(), fc.constant('a.png')) }),
  fc.anything(),
);
const validParams = fc.oneof(
  fc.record({
    sender_phone: fc.constant('+1'),
    to_phone: fc.constant('+2'),
    type: fc.constant('text'),
    content: fc.string({ minLength: 1 }),
  }),
  fc.record({
    sender_number_id: fc.integer({ min: 1 }),
    to_phone: fc.constant('+2'),
    type: fc.constantFrom('image', 'voice', 'document'),
    media: fc.record({ data: fc.uint8Array({ maxLength: 8 }), filename: fc.constant('a.png') }),
  }),
);
const params = fc.oneof(
  validParams,
  fc.record(
    {
      sender_phone: phone,
      sender_number_id: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(undefined)),
      to_phone: phone,
      type: fc.oneof(fc.constantFrom('text', 'image', 'voice', 'document', 'audio', 'video'), fc.anything()),
      content: fc.oneof(fc.string(), fc.constant(undefined), fc.anything()),
      media,
      extra: fc.anything(),
    },
    { requiredKeys: [] },
  ),
  fc.anything(),
);

describe('send with arbitrary input', () => {
  it('is either rejected with a ValidationError before any request, or sent exactly once', async () => {
    let sent = 0;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(params, async (input) => {
        const before = requests;
        const valid = sendMessageParamsSchema.safeParse(input).success;
        try {
          await client.messages.send(input as never);
          expect(requests - before).toBe(1);
          sent++;
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).issues.length).toBeGreaterThan(0);
          expect(requests).toBe(before);
          expect(valid).toBe(false);
          rejected++;
        }
      }),
      { numRuns: 400 },
    );
    // Both outcomes must really have been exercised.
    expect(sent).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(50);
    expect(unhandled).toEqual([]);
  });
});

const cyclic: Record<string, unknown> = {};
cyclic['self'] = cyclic;

describe('ids with arbitrary input', () => {
  it('get and waitForDelivery accept only integers >= 1, checked before any request', async () => {
    await fc.assert(
      fc.asyncProperty(
        // BigInt ids come from database drivers; cyclic objects break JSON.stringify.
        fc.oneof(fc.anything({ withBigInt: true }), fc.integer(), fc.double(), fc.bigInt(), fc.constant(cyclic)),
        async (id) => {
          const before = requests;
          const valid = typeof id === 'number' && Number.isSafeInteger(id) && id >= 1;
          for (const call of [
            () => client.messages.get(id as number),
            () => client.waitForDelivery(id as number, { interval: 1, timeout: 1000 }),
          ]) {
            const outcome = await call().then(
              () => 'ok',
              (error: unknown) => error,
            );
            if (valid) expect(outcome).not.toBeInstanceOf(ValidationError);
            else {
              expect(outcome).toBeInstanceOf(ValidationError);
              expect(outcome).toBeInstanceOf(MessagingError);
            }
          }
          if (!valid) expect(requests).toBe(before);
        },
      ),
      { numRuns: 300 },
    );
    expect(unhandled).toEqual([]);
  });

  it('lookup and list never throw anything but typed errors', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), fc.anything(), async (a, b) => {
        const outcome = await client.contacts.lookup({ phone: a, sender_phone: b } as never).catch((e: unknown) => e);
        if (outcome instanceof Error) expect(outcome).toBeInstanceOf(ValidationError);
      }),
      { numRuns: 200 },
    );
  });
});
