import type { ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  type ClientOptions,
  type DeliveryStatus,
  type JsonObject,
  type MediaInput,
  type MessageLog,
  type MessagingClient,
  mediaFromPath,
  type Page,
  type PagePromise,
  type SendMessageParams,
} from 'tenant-messaging';
import type { Agent, ProxyAgent } from 'undici';
import { describe, expectTypeOf, it } from 'vitest';

type Client = MessagingClient;

describe('public types', () => {
  it('send and get resolve with a MessageLog', () => {
    expectTypeOf<Client['messages']['send']>().returns.resolves.toEqualTypeOf<MessageLog>();
    expectTypeOf<Client['messages']['get']>().returns.resolves.toEqualTypeOf<MessageLog>();
    expectTypeOf<Client['waitForDelivery']>().returns.resolves.toEqualTypeOf<MessageLog>();
    expectTypeOf<Client['messages']['list']>().returns.toEqualTypeOf<PagePromise<MessageLog>>();
    expectTypeOf<Awaited<PagePromise<MessageLog>>>().toEqualTypeOf<Page<MessageLog>>();
  });

  it('endpoints without a specified shape resolve with open JSON objects', () => {
    expectTypeOf<Client['me']>().returns.resolves.toEqualTypeOf<JsonObject>();
    expectTypeOf<Client['usage']>().returns.resolves.toEqualTypeOf<JsonObject>();
    expectTypeOf<Client['senderNumbers']['list']>().returns.resolves.toEqualTypeOf<JsonObject[]>();
  });

  it('delivery_status autocompletes the known values but accepts new ones', () => {
    expectTypeOf<'delivered'>().toExtend<DeliveryStatus>();
    expectTypeOf<'some-future-status'>().toExtend<DeliveryStatus>();
    expectTypeOf<MessageLog['sent_at']>().toEqualTypeOf<string | null>();
  });

  it('valid send combinations type-check', () => {
    expectTypeOf({
      sender_phone: '+1',
      to_phone: '+2',
      type: 'text',
      content: 'hi',
    } as const).toExtend<SendMessageParams>();
    expectTypeOf({
      sender_number_id: 1,
      to_phone: '+2',
      type: 'image',
      media: mediaFromPath('a.png'),
    } as const).toExtend<SendMessageParams>();
    expectTypeOf({
      sender_number_id: 1,
      to_phone: '+2',
      type: 'voice',
      media: { data: new Uint8Array(), filename: 'v.ogg' },
    } as const).toExtend<SendMessageParams>();
  });

  it('Node streams and undici dispatchers fit the shapes the declarations name them by (they need no @types/node)', () => {
    expectTypeOf<ReadStream>().toExtend<MediaInput>();
    expectTypeOf<{ data: Readable; filename: string }>().toExtend<MediaInput>();
    // A stream without a path has no file name: it goes in { data, filename }, as before.
    expectTypeOf<Readable>().not.toExtend<MediaInput>();
    expectTypeOf<Agent>().toExtend<ClientOptions['dispatcher']>();
    expectTypeOf<ProxyAgent>().toExtend<ClientOptions['dispatcher']>();
    expectTypeOf<{ dispatch: string }>().not.toExtend<ClientOptions['dispatcher']>();
  });

  it('invalid send combinations are compile errors', () => {
    const check = (_params: SendMessageParams) => undefined;
    // @ts-expect-error text needs content
    check({ sender_phone: '+1', to_phone: '+2', type: 'text' });
    // @ts-expect-error a media type needs media
    check({ sender_phone: '+1', to_phone: '+2', type: 'image', content: 'caption' });
    // @ts-expect-error both senders
    check({ sender_phone: '+1', sender_number_id: 1, to_phone: '+2', type: 'text', content: 'x' });
    // @ts-expect-error neither sender
    check({ to_phone: '+2', type: 'text', content: 'x' });
    // @ts-expect-error text with media
    check({ sender_phone: '+1', to_phone: '+2', type: 'text', content: 'x', media: new Blob([]) });
    // @ts-expect-error raw bytes need a filename
    check({ sender_phone: '+1', to_phone: '+2', type: 'image', media: new Uint8Array() });
    // @ts-expect-error audio is a log type, not a send type
    check({ sender_phone: '+1', to_phone: '+2', type: 'audio', media: new Blob([]) });
    // @ts-expect-error the API's field names, not camelCase
    check({ sender_phone: '+1', toPhone: '+2', type: 'text', content: 'x' });
  });
});
