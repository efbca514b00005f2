/**
 * Careless and hostile callers: every public entry answers a bad argument with a ValidationError
 * before any request, whatever the argument is (null, a primitive, an array, a Proxy whose traps
 * throw, an object whose getters throw), and what goes on the wire is what was checked.
 */
import fc from 'fast-check';
import { MessagingClient, mediaFromPath, ValidationError } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, messageLog, startServer, type TestServer } from '../helpers/server.js';

const KEY = 'tm_test_careless';
const TEXT = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'Hi' } as const;

let server: TestServer;
let client: MessagingClient;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const id = Number(req.url.split('?')[0]?.split('/').pop());
    json(res, 200, { data: messageLog(Number.isSafeInteger(id) && id > 0 ? { id } : {}) });
  });
  client = new MessagingClient({ baseUrl: server.url, apiKey: KEY, maxRetries: 0 });
});
afterAll(() => server.close());

/** Something a careless or hostile caller may pass where an object of fields is expected. */
const badArgument = fc.oneof(
  fc.constantFrom(null, 0, 1, '', 'options', true, Symbol('s'), 10n, [], [1, 2], () => undefined),
  fc.string().map(
    (message) =>
      new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error(message);
          },
        },
      ),
  ),
  fc.string().map(
    (message) =>
      new Proxy(
        { timeout: 1 },
        {
          get: () => {
            throw new RangeError(message);
          },
        },
      ),
  ),
  fc.string().map((message) => ({
    get timeout(): number {
      throw new TypeError(message);
    },
  })),
);

/** Every public entry that takes an object of fields, called with `bad` in that place. */
const entries: Record<string, (bad: unknown) => unknown> = {
  'new MessagingClient(bad)': (bad) => new MessagingClient(bad as never),
  'client.withOptions(bad)': (bad) => client.withOptions(bad as never),
  'client.me(bad)': (bad) => client.me(bad as never),
  'client.subscription(bad)': (bad) => client.subscription(bad as never),
  'client.usage(bad)': (bad) => client.usage(bad as never),
  'client.senderNumbers.list(bad)': (bad) => client.senderNumbers.list(bad as never),
  'client.contacts.lookup(bad)': (bad) => client.contacts.lookup(bad as never),
  'client.contacts.lookup(params, bad)': (bad) =>
    client.contacts.lookup({ phone: '+15550000002', sender_phone: '+15550000001' }, bad as never),
  'client.messages.get(1, bad)': (bad) => client.messages.get(1, bad as never),
  'client.messages.send(bad)': (bad) => client.messages.send(bad as never),
  'client.messages.send(params, bad)': (bad) => client.messages.send(TEXT, bad as never),
  'client.messages.list(bad)': (bad) => client.messages.list(bad as never).then((page) => page),
  'client.messages.list({}, bad)': (bad) => client.messages.list({}, bad as never).then((page) => page),
  'client.waitForDelivery(1, bad)': (bad) => client.waitForDelivery(1, bad as never),
  "mediaFromPath('./photo.png', bad)": (bad) => mediaFromPath('./photo.png', bad as never),
};

/** Runs an entry and returns what it threw or rejected with (or undefined). */
async function failure(run: () => unknown): Promise<unknown> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('a bad argument to any public entry', () => {
  it.each(Object.keys(entries))(
    '%s: ValidationError before any request, with the thrown error as cause',
    async (name) => {
      const entry = entries[name] as (bad: unknown) => unknown;
      await fc.assert(
        fc.asyncProperty(badArgument, async (bad) => {
          const before = server.requests.length;
          const error = await failure(() => entry(bad));
          expect(error).toBeInstanceOf(ValidationError);
          expect(server.requests.length).toBe(before);
          // A caller's throwing trap or getter is kept as the cause, not swallowed.
          if (typeof bad === 'object' && bad !== null && !Array.isArray(bad) && (error as Error).cause) {
            expect((error as Error).cause).toBeInstanceOf(Error);
          }
        }),
        { seed: 9, numRuns: 40 },
      );
    },
  );

  it('a throwing getter is reported with its error as cause', async () => {
    const boom = new Error('getter exploded');
    const options = {
      get timeout(): number {
        throw boom;
      },
    };
    const error = (await failure(() => client.messages.get(1, options))) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.cause).toBe(boom);
  });
});

describe('hostile values thrown back at the SDK', () => {
  it('an abort reason whose toString throws is the rejection, as given', async () => {
    const reason = {
      toString() {
        throw new Error('no');
      },
    };
    const controller = new AbortController();
    controller.abort(reason);
    await expect(client.messages.get(1, { signal: controller.signal })).rejects.toBe(reason);
    const late = new AbortController();
    const call = client.messages.send(TEXT, { signal: late.signal });
    late.abort(reason);
    await expect(call).rejects.toBe(reason);
  });
});

describe('unknown per-call options', () => {
  it('are refused as on the client, with the option they were probably meant to be', async () => {
    const calls = [
      () => client.messages.get(1, { timout: 5 } as never),
      () => client.me({ Timeout: 5 } as never),
      () => client.messages.send(TEXT, { retries: 1 } as never),
      () => client.messages.get(1, { onUploadProgress: () => undefined } as never),
    ];
    const before = server.requests.length;
    for (const call of calls) {
      const error = (await failure(call)) as ValidationError;
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(/is not an option/);
    }
    const typo = (await failure(calls[1] as () => unknown)) as ValidationError;
    expect(typo.message).toMatch(/did you mean timeout\?/);
    expect(server.requests.length).toBe(before);
  });

  it('onUploadProgress is an option of send', async () => {
    await expect(client.messages.send(TEXT, { onUploadProgress: () => undefined })).resolves.toMatchObject({ id: 42 });
  });
});

describe('what goes on the wire is what was checked', () => {
  it('inherited header properties never reach the wire, whatever their name', async () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
    await fc.assert(
      fc.asyncProperty(
        name,
        fc.constantFrom('content-length', 'x-api-key', 'host', 'x-inherited'),
        async (own, inherited) => {
          fc.pre(own !== inherited && own !== 'x-api-key' && own !== 'host');
          const headers = Object.create({ [inherited]: 'from-the-prototype' }) as Record<string, string>;
          headers[`x-${own}`] = 'own';
          await client.messages.get(1, { headers });
          const seen = server.requests.at(-1)?.headers ?? {};
          expect(seen[`x-${own}`]).toBe('own');
          expect(Object.values(seen)).not.toContain('from-the-prototype');
          expect(seen['x-api-key']).toBe(KEY);
        },
      ),
      { seed: 11, numRuns: 25 },
    );
  });

  it('send parameters are read once: getters that change later cannot put another value on the wire', async () => {
    let reads = 0;
    const params = {
      sender_phone: '+15550000001',
      type: 'text',
      content: 'Hi',
      get to_phone() {
        reads++;
        return reads === 1 ? '+15550000002' : (undefined as unknown as string);
      },
    };
    await client.messages.send(params as never);
    expect(JSON.parse(server.requests.at(-1)?.body.toString() ?? '{}')).toMatchObject({ to_phone: '+15550000002' });
    expect(reads).toBe(1);
  });
});
