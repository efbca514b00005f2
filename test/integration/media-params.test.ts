import { join } from 'node:path';
import fc from 'fast-check';
import {
  MessagingClient,
  mediaFromPath,
  type NamedMedia,
  PathMedia,
  type SendMessageParams,
  ValidationError,
} from 'tenant-messaging';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, messageLog, parseMultipart, startServer, type TestServer, tempFiles } from '../helpers/server.js';

let server: TestServer;
let client: MessagingClient;
let dir: string;
let files: Awaited<ReturnType<typeof tempFiles>>;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);

beforeAll(async () => {
  // Every even request is refused with 429 (retried at once), every odd one accepted: each send
  // then goes out twice, and the retried body must carry the same checked values as the first.
  server = await startServer((_req, res, index) =>
    index % 2 === 0
      ? json(res, 429, { message: 'Too Many Attempts.' }, { 'retry-after': '0' })
      : json(res, 201, { data: messageLog({ message_type: 'image' }) }),
  );
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

const phone = fc.stringMatching(/^\+1555\d{7}$/);
/** What a changing getter answers after its first read: nothing, another valid value, or junk. */
const later = fc.oneof(fc.constant(undefined), phone, fc.string(), fc.integer());

/** Valid on the first read of each field, `then` on every later read. */
function shifting(fields: Record<string, unknown>, then: unknown, media: NamedMedia): Record<string, unknown> {
  const reads = new Map<string, number>();
  const params: Record<string, unknown> = { type: 'image', media };
  for (const [key, value] of Object.entries(fields)) {
    Object.defineProperty(params, key, {
      enumerable: true,
      get() {
        const n = reads.get(key) ?? 0;
        reads.set(key, n + 1);
        return n === 0 ? value : then;
      },
    });
  }
  return params;
}

/** The same, as a Proxy whose `get` trap changes its answers. */
function shiftingProxy(fields: Record<string, unknown>, then: unknown, media: NamedMedia): Record<string, unknown> {
  const reads = new Map<PropertyKey, number>();
  return new Proxy(
    { type: 'image', media, ...fields },
    {
      get(target, key, receiver) {
        if (!(key in fields)) return Reflect.get(target, key, receiver);
        const n = reads.get(key) ?? 0;
        reads.set(key, n + 1);
        return n === 0 ? Reflect.get(target, key, receiver) : then;
      },
    },
  );
}

describe('a media send sends the values that were checked, on every attempt', () => {
  it.each([
    ['getters', shifting],
    ['a Proxy', shiftingProxy],
  ])('params with %s that change after the first read', async (_name, build) => {
    await fc.assert(
      fc.asyncProperty(phone, phone, fc.string({ minLength: 1 }), later, async (from, to, caption, then) => {
        server.requests.length = 0;
        const fields = { sender_phone: from, to_phone: to, content: caption };
        const params = build(fields, then, { data: PNG, filename: 'photo.png' });
        await client.messages.send(params as unknown as SendMessageParams);
        expect(server.requests).toHaveLength(2);
        for (const request of server.requests) {
          const form = await parseMultipart(request);
          expect([form.get('sender_phone'), form.get('to_phone'), form.get('content')]).toEqual([from, to, caption]);
          expect(form.get('type')).toBe('image');
          expect(Buffer.from(await (form.get('media') as File).arrayBuffer())).toEqual(PNG);
        }
      }),
      { seed: 7, numRuns: 25 },
    );
  });
});

/** A string with at least one control character (C0, DEL or C1) somewhere in it. */
const withControl = fc
  .tuple(
    fc.string(),
    fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0x9f })),
    fc.string(),
  )
  .map(([before, code, after]) => before + String.fromCharCode(code) + after);

async function refused(media: unknown): Promise<ValidationError> {
  const params = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'image', media };
  const error = await client.messages.send(params as SendMessageParams).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationError);
  expect(server.requests).toHaveLength(0);
  return error as ValidationError;
}

describe('a file name or content type with control characters is refused before any I/O', () => {
  const cases: [string, (bad: string) => unknown, RegExp][] = [
    ['contentType of { data, filename }', (bad) => ({ data: PNG, filename: 'a.png', contentType: bad }), /contentType/],
    ['filename of { data, filename }', (bad) => ({ data: PNG, filename: `a${bad}` }), /file name/],
    ['name of a File', (bad) => new File([PNG], `a${bad}`), /file name/],
    ['contentType of a PathMedia', (bad) => new PathMedia(join(dir, 'photo.png'), 'a.png', bad), /contentType/],
    ['filename of a PathMedia', (bad) => new PathMedia(join(dir, 'photo.png'), `a${bad}`, 'image/png'), /file name/],
  ];

  it.each(cases)('%s', async (_name, media, message) => {
    await fc.assert(
      fc.asyncProperty(withControl, async (bad) => {
        const error = await refused(media(bad));
        expect(error.issues[0]?.path).toBe('media');
        expect(error.issues[0]?.message).toMatch(message);
        expect(error.issues[0]?.message).toMatch(/control characters/);
      }),
      { seed: 8, numRuns: 40 },
    );
  });

  it('a content type outside printable ASCII is refused too', async () => {
    const error = await refused({ data: PNG, filename: 'a.png', contentType: 'image/pngé' });
    expect(error.message).toMatch(/printable ASCII/);
  });

  it('mediaFromPath refuses them at once, naming the option', () => {
    fc.assert(
      fc.property(withControl, (bad) => {
        for (const [option, value] of [
          ['filename', { filename: `a${bad}` }],
          ['contentType', { contentType: bad }],
        ] as const) {
          const error = (() => {
            try {
              return mediaFromPath(join(dir, 'photo.png'), value);
            } catch (e) {
              return e;
            }
          })();
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).field).toBe(option);
        }
      }),
      { seed: 9, numRuns: 100 },
    );
  });
});

describe('mediaFromPath checks its arguments', () => {
  it.each([
    ['undefined', undefined, /got undefined/],
    ['null', null, /got null/],
    ['a number', 42, /got number/],
    ['an empty string', '', /got an empty string/],
  ])('a path that is %s is a ValidationError on path', (_name, path, message) => {
    expect(() => mediaFromPath(path as never)).toThrow(ValidationError);
    try {
      mediaFromPath(path as never);
    } catch (error) {
      expect((error as ValidationError).field).toBe('path');
      expect((error as ValidationError).message).toMatch(message);
    }
  });

  it('options that are not an object are a ValidationError', () => {
    expect(() => mediaFromPath('x.png', 'image/png' as never)).toThrow(/must be an object/);
  });

  it('a valid path still sends its file with the guessed name and type', async () => {
    await client.messages.send({
      sender_phone: '+15550000001',
      to_phone: '+15550000002',
      type: 'image',
      media: mediaFromPath(join(dir, 'photo.png')),
    });
    const file = (await parseMultipart(server.requests[1]!)).get('media') as File;
    expect([file.name, file.type]).toEqual(['photo.png', 'image/png']);
  });
});
