/**
 * validateSendParams: refuses exactly what messages.send refuses before any request, in the same
 * words, and resolves with the checked copy of what it accepts, without a request.
 */
import { MessagingClient, type SendMessageParams, ValidationError, validateSendParams } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeService, fakeService, json, messageLog } from '../helpers/fake-service.js';

// A fake service in process: what is compared is what the SDK refuses before any request.
let server: FakeService;
let client: MessagingClient;

beforeAll(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
  server = fakeService(() => json(201, { data: messageLog() }));
  client = new MessagingClient({
    baseUrl: 'https://api.example.test',
    apiKey: 'k',
    maxRetries: 0,
    fetch: server.fetch,
  });
});
afterAll(async () => {
  await client.close();
  vi.useRealTimers();
});

const text = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'Hello' } as const;

const REFUSED: [string, unknown][] = [
  ['not an object', 'send this'],
  ['null', null],
  ['an array', [text]],
  ['a blank recipient', { ...text, to_phone: '  ' }],
  ['empty content', { ...text, content: '' }],
  ['both senders', { ...text, sender_number_id: 1 }],
  ['no sender', { to_phone: text.to_phone, type: 'text', content: 'x' }],
  ['a media type without media', { ...text, type: 'image' }],
  ['an unknown type', { ...text, type: 'fax' }],
  ['a NUL in the content', { ...text, content: 'a\u0000b' }],
  [
    'a reading that throws',
    Object.defineProperty({ ...text }, 'content', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    }),
  ],
];

describe('validateSendParams', () => {
  it.each(REFUSED)('refuses %s as messages.send does, in the same words, with no request', async (_name, params) => {
    const before = server.requests.length;
    const refused = await validateSendParams(params).catch((error: unknown) => error);
    const sent = await client.messages.send(params as SendMessageParams).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(sent).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).message).toBe((sent as ValidationError).message);
    expect((refused as ValidationError).issues).toEqual((sent as ValidationError).issues);
    expect(server.requests.length).toBe(before);
  });

  it('resolves with a checked copy of what messages.send accepts, and sends nothing', async () => {
    const before = server.requests.length;
    const given = { ...text };
    const checked = await validateSendParams(given);
    expect(checked).toEqual(text);
    expect(checked).not.toBe(given);
    expect(server.requests.length).toBe(before);
    await client.messages.send(checked);
    expect(server.requests.length).toBe(before + 1);
  });
});
