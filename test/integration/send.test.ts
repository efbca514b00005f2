import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MessagingClient, mediaFromPath, type SendMessageParams, ValidationError } from 'tenant-messaging';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, messageLog, parseMultipart, startServer, type TestServer, tempFiles } from '../helpers/server.js';

let server: TestServer;
let client: MessagingClient;
let dir: string;
let files: Awaited<ReturnType<typeof tempFiles>>;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

beforeAll(async () => {
  server = await startServer((_req, res) => json(res, 201, { data: messageLog({ message_type: 'image' }) }));
  client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
  files = await tempFiles({ 'photo.png': PNG });
  dir = files.dir;
});
afterAll(async () => {
  await server.close();
  await files.remove();
});
beforeEach(() => {
  server.requests.length = 0;
});

const base = { sender_phone: '+15550000001', to_phone: '+15550000002' } as const;

describe('media bodies are multipart/form-data, parsed as a server would', () => {
  const cases: [string, () => SendMessageParams['media'], string, string][] = [
    ['a File', () => new File([PNG], 'photo.png', { type: 'image/png' }), 'photo.png', 'image/png'],
    ['a Blob (named "blob")', () => new Blob([PNG], { type: 'image/png' }), 'blob', 'image/png'],
    ['a Buffer with a filename', () => ({ data: PNG, filename: 'photo.png' }), 'photo.png', 'image/png'],
    [
      'an ArrayBuffer with a filename and type',
      () => ({ data: new Uint8Array(PNG).buffer, filename: 'x.bin', contentType: 'image/png' }),
      'x.bin',
      'image/png',
    ],
    ['an fs.ReadStream', () => createReadStream(join(dir, 'photo.png')), 'photo.png', 'image/png'],
    [
      'a Readable with a filename',
      () => ({ data: Readable.from([PNG.subarray(0, 5), PNG.subarray(5)]), filename: 'photo.png' }),
      'photo.png',
      'image/png',
    ],
    [
      'a web ReadableStream with a filename',
      () => ({ data: new Blob([PNG]).stream(), filename: 'photo.png' }),
      'photo.png',
      'image/png',
    ],
    ['mediaFromPath', () => mediaFromPath(join(dir, 'photo.png')), 'photo.png', 'image/png'],
    [
      'mediaFromPath with a name',
      () => mediaFromPath(join(dir, 'photo.png'), { filename: 'r.png', contentType: 'image/x-test' }),
      'r.png',
      'image/x-test',
    ],
  ];

  it.each(cases)('%s', async (_name, media, filename, type) => {
    await client.messages.send({ ...base, type: 'image', content: 'Caption', media: media() as never });
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await parseMultipart(req);
    expect(form.get('sender_phone')).toBe('+15550000001');
    expect(form.get('to_phone')).toBe('+15550000002');
    expect(form.get('type')).toBe('image');
    expect(form.get('content')).toBe('Caption');
    const file = form.get('media') as File;
    expect(file.name).toBe(filename);
    expect(file.type).toBe(type);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);
  });

  it('sends Content-Length when every size is known, chunked when a stream size is not', async () => {
    await client.messages.send({ ...base, type: 'voice', media: mediaFromPath(join(dir, 'photo.png')) });
    await client.messages.send({ ...base, type: 'voice', media: { data: Readable.from([PNG]), filename: 'v.ogg' } });
    const [known, unknown] = server.requests;
    expect(Number(known?.headers['content-length'])).toBe(known?.body.length);
    expect(unknown?.headers['transfer-encoding']).toBe('chunked');
  });

  it('sends sender_number_id as a part, and no content part when there is no caption', async () => {
    await client.messages.send({ sender_number_id: 3, to_phone: '+1', type: 'document', media: new Blob(['x']) });
    const form = await parseMultipart(server.requests[0]!);
    expect(form.get('sender_number_id')).toBe('3');
    expect(form.has('content')).toBe(false);
    expect(form.has('sender_phone')).toBe(false);
  });
});

describe('bad send parameters are rejected before any request', () => {
  const bad: [string, unknown, string, RegExp][] = [
    ['text without content', { ...base, type: 'text' }, 'content', /required for text/],
    ['empty text', { ...base, type: 'text', content: '' }, 'content', /must not be empty/],
    ['media type without media', { ...base, type: 'image' }, 'media', /required for image/],
    ['bytes without a filename', { ...base, type: 'image', media: PNG }, 'media', /need a file name/],
    [
      'a stream without a filename',
      { ...base, type: 'image', media: Readable.from([PNG]) },
      'media',
      /stream has no file name/,
    ],
    ['a path string as media', { ...base, type: 'image', media: '/tmp/x.png' }, 'media', /mediaFromPath/],
    ['text with media', { ...base, type: 'text', content: 'x', media: new Blob(['x']) }, 'media', /only for image/],
    ['an unknown type', { ...base, type: 'video', content: 'x' }, 'type', /'text', 'image', 'voice' or 'document'/],
    ['both senders', { ...base, sender_number_id: 1, type: 'text', content: 'x' }, 'sender_phone', /not both/],
    ['no sender', { to_phone: '+1', type: 'text', content: 'x' }, 'sender_phone', /sender_phone or sender_number_id/],
    ['a blank recipient', { ...base, to_phone: '  ', type: 'text', content: 'x' }, 'to_phone', /blank/],
    ['a missing recipient', { sender_phone: '+1', type: 'text', content: 'x' }, 'to_phone', /required/],
    [
      'a fractional sender id',
      { sender_number_id: 1.5, to_phone: '+1', type: 'text', content: 'x' },
      'sender_number_id',
      /integer/,
    ],
    ['null', null, '', /must be an object/],
    ['a misspelt field', { ...base, type: 'text', content: 'x', toPhone: '+1' }, '', /toPhone/],
  ];

  it.each(bad)('%s', async (_name, params, field, message) => {
    const error = await client.messages.send(params as SendMessageParams).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    const issue = (error as ValidationError).issues.find((i) => i.path === field);
    expect(issue?.message ?? (error as Error).message).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('a missing file is a ValidationError naming the path, before any request', async () => {
    const error = await client.messages
      .send({ ...base, type: 'image', media: mediaFromPath(join(dir, 'nope.png')) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toContain('nope.png');
    expect(server.requests).toHaveLength(0);
  });
});
