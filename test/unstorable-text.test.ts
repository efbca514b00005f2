/**
 * Text that no datastore, nor the API, can hold as given (a NUL, U+0000, or a lone UTF-16
 * surrogate) is refused with a `ValidationError` before anything is touched, the same on every
 * path, in every string field of a send that is sent or stored (content, the phones, a caption,
 * the media's file name and content type):
 * - `client.messages.send` against the sandbox over HTTP: no request reaches it, nothing is stored;
 * - `queue.send` on Redis: nothing is enqueued;
 * - `outbox.add` inside the caller's PostgreSQL transaction: the transaction stays usable (their
 *   own statements after it run and commit), and the outbox holds nothing for it. Before the fix,
 *   PostgreSQL's jsonb refused such a value, which aborted the caller's transaction.
 * The same string without the bad character goes through each path, and well-formed text of any
 * script (emoji, CJK, RTL, combining marks) comes out exactly as it went in.
 */
import { Queue } from 'bullmq';
import fc from 'fast-check';
import pg from 'pg';
import { MessagingClient, mediaFromPath, type SendMessageParams, ValidationError } from 'tenant-messaging';
import { MessagingOutbox, MessagingQueue } from 'tenant-messaging/bullmq';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, startPostgresWithBullmq, type TestPostgres } from './helpers/postgres.js';
import { redisAvailable, startRedis, type TestRedis, uniqueName } from './helpers/redis.js';

const SENDER = '+15550001001';
const SEED = 20261122;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

/** The string fields of a send that are sent or stored (`caption` is a media send's `content`). */
const FIELDS = ['content', 'to_phone', 'sender_phone', 'caption', 'filename', 'contentType'] as const;
type Field = (typeof FIELDS)[number];

/** The send with `value` in `field` and every other field valid. */
function sendWith(field: Field, value: string): SendMessageParams {
  const base = { sender_phone: SENDER, to_phone: SANDBOX_PHONES.reads };
  if (field === 'content' || field === 'to_phone' || field === 'sender_phone') {
    return { ...base, type: 'text', content: 'Hello', [field]: value } as SendMessageParams;
  }
  const media = { data: PNG, filename: 'photo.png', contentType: 'image/png' };
  if (field === 'caption') return { ...base, type: 'image', content: value, media };
  return { ...base, type: 'image', content: 'Receipt', media: { ...media, [field]: value } };
}

/** The issue's path for a bad `field`: media problems are reported on `media`. */
const issuePath = (field: Field): string =>
  field === 'caption' ? 'content' : field === 'filename' || field === 'contentType' ? 'media' : field;

/** Plain JSON of a send as the SDK keeps it (media described by its name and type). */
interface Kept {
  readonly content?: string;
  readonly to_phone?: string;
  readonly sender_phone?: string;
  readonly media?: { readonly filename?: string; readonly contentType?: string };
}

/** The params a queued job holds. */
const paramsOf = (job: { data: unknown } | undefined): Kept =>
  (job?.data as { params?: Kept } | undefined)?.params ?? {};

/** Where `field`'s value is in a send as a job or the outbox stores it. */
function keptValue(field: Field, kept: Kept): string | undefined {
  if (field === 'caption') return kept.content;
  if (field === 'filename' || field === 'contentType') return kept.media?.[field];
  return kept[field];
}

/** One character no datastore can hold: a NUL, or half of a surrogate pair with no other half. */
const unstorable = fc.oneof(
  fc.constant('\0'),
  fc.integer({ min: 0xd800, max: 0xdbff }).map((unit) => String.fromCharCode(unit)),
  fc.integer({ min: 0xdc00, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
);

/**
 * A field, and a string of any well-formed text (emoji, CJK, RTL, combining marks; printable ASCII
 * for a content type) with one unstorable character put in anywhere between two whole characters.
 * `control` is the same string without it, which every path accepts. A lone surrogate next to
 * whole characters stays lone: well-formed text never starts with a low half or ends with a high one.
 */
const cases = fc
  .constantFrom(...FIELDS)
  .chain((field) => {
    const text = fc.string({ unit: field === 'contentType' ? 'grapheme-ascii' : 'grapheme', maxLength: 8 });
    return fc.record({ field: fc.constant(field), before: text, bad: unstorable, after: text });
  })
  .map(({ field, before, bad, after }) => caseOf(field, before, bad, after))
  // Blank phones, an empty text or file name are refused for their own reasons.
  .filter(({ field, control }) => field === 'contentType' || field === 'caption' || control.trim() !== '');

type Case = ReturnType<typeof caseOf>;

function caseOf(field: Field, before: string, bad: string, after: string) {
  return { field, value: before + bad + after, control: before + after, at: before.length, bad };
}

/**
 * Run first by every property (and counted in its runs, hence `numRuns: EVERY_FIELD.length + 60`):
 * each field with a NUL, a lone high and a lone low surrogate, at its start, middle and end.
 */
const EVERY_FIELD: [Case][] = FIELDS.flatMap((field) => {
  const around =
    field === 'contentType'
      ? [
          ['', 'image/png'],
          ['image', '/png'],
          ['text/plain', ''],
        ]
      : [
          ['', 'Hello 😀'],
          ['ab 😀', '中'],
          ['שלום e\u0301', ''],
        ];
  return ['\0', '\uD83D', '\uDE00'].flatMap((bad) =>
    around.map(([before = '', after = '']): [Case] => [caseOf(field, before, bad, after)]),
  );
});

/** Checks the ValidationError of a bad case: the field, the code point, the index, no quoted text. */
function expectRefusal(error: unknown, { field, value, at, bad }: Case) {
  expect(error).toBeInstanceOf(ValidationError);
  const issues = (error as ValidationError).issues.filter((issue) => issue.path === issuePath(field));
  expect(issues).toHaveLength(1);
  const message = (issues[0] as { message: string }).message;
  if (field === 'contentType') {
    expect(message).toContain('printable ASCII');
    return;
  }
  if (field === 'filename' && bad === '\0') {
    expect(message).toContain('control characters');
    return;
  }
  const code = bad.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  const what = bad === '\0' ? 'a NUL character' : 'a lone UTF-16 surrogate';
  expect(message).toContain(`contains ${what} (U+${code}) at index ${at}:`);
  expect(message).toMatch(bad === '\0' ? /remove it/ : /cut in the middle of an emoji/);
  if (value.length > 4) expect(message).not.toContain(value);
}

/** Image sends whose `mediaFromPath` path (stored by a queued send) cannot be stored. */
const BAD_PATHS: readonly [string, SendMessageParams][] = ['/tmp/a\0b.png', '/tmp/\uDE00.png'].map((path) => [
  JSON.stringify(path),
  {
    sender_phone: SENDER,
    to_phone: SANDBOX_PHONES.reads,
    type: 'image',
    media: mediaFromPath(path, { filename: 'photo.png' }),
  },
]);

/** The issue of a bad `mediaFromPath` path. */
const pathIssue = {
  path: 'media',
  message: expect.stringMatching(/^the path contains a (NUL character|lone UTF-16 surrogate)/),
};

/** Text of several scripts, all well-formed: it must come out exactly as it went in. */
const WORLD = 'Hi 👋🏽 👨‍👩‍👧 🇯🇵 你好 こんにちは مرحبا שלום नमस्ते e\u0301 n\u0303 Ω';
const WORLD_CASES: readonly [Field, string][] = [
  ['content', WORLD],
  ['caption', WORLD],
  ['filename', 'קבלה-领收书-😀-é.png'],
];

describe('client.messages.send against the sandbox', () => {
  let sandbox: RunningSandbox;
  let client: MessagingClient;
  beforeAll(async () => {
    sandbox = await startSandbox();
    const acme = sandbox.tenants['acme'];
    if (!acme) throw new Error('the sandbox has no tenant acme');
    const { baseUrl, keys } = acme;
    client = new MessagingClient({ baseUrl, apiKey: keys.full, timeout: 2_000, maxRetries: 0 });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  /** Every request the sandbox has seen, and every log it stored. */
  const seen = () => ({
    requests: Object.values(sandbox.counters.requests).reduce((sum, n) => sum + n, 0),
    stored: sandbox.counters.sendsStored,
    logs: sandbox.messages('acme').length,
  });

  it('refuses a NUL or a lone surrogate in any field before any request; the same string without it is sent', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const before = seen();
        expectRefusal(await client.messages.send(sendWith(c.field, c.value)).catch((e: unknown) => e), c);
        expect(seen()).toEqual(before);
        // The control reaches the sandbox (which may refuse a made-up phone number itself).
        const sent = await client.messages.send(sendWith(c.field, c.control)).catch((e: unknown) => e);
        expect(sent).not.toBeInstanceOf(ValidationError);
        expect(seen().requests).toBe(before.requests + 1);
        if (c.field === 'content' || c.field === 'caption')
          expect(sandbox.messages('acme').at(-1)?.content).toBe(c.control);
      }),
      { numRuns: EVERY_FIELD.length + 60, seed: SEED, examples: EVERY_FIELD },
    );
  });

  it('a string cut in the middle of an emoji is refused, with the index and how it happened', async () => {
    const cut = 'Order shipped 📦'.slice(0, -1);
    const error = await client.messages.send(sendWith('content', cut)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'content',
        message: expect.stringMatching(
          /^contains a lone UTF-16 surrogate \(U\+D83D\) at index 14: it cannot be encoded as UTF-8; the string was probably cut in the middle of an emoji/,
        ),
      },
    ]);
    expect((error as ValidationError).message).not.toContain('Order shipped');
  });

  it.each(BAD_PATHS)('refuses the media path %s before any request', async (_name, params) => {
    const before = seen();
    const error = await client.messages.send(params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([pathIssue]);
    expect(seen()).toEqual(before);
  });

  it.each(WORLD_CASES)('sends well-formed text of every script unchanged (%s)', async (field, value) => {
    const log = await client.messages.send(sendWith(field, value));
    if (field === 'filename') expect(sandbox.uploads.at(-1)?.filename).toBe(value);
    else expect(log.content).toBe(value);
  });
});

describe.runIf(redisAvailable())('queue.send on Redis', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('refuses a NUL or a lone surrogate in any field, enqueueing nothing; the same string without it is stored unchanged', async () => {
    const name = uniqueName('unstorable');
    const queue = new MessagingQueue({ connection: redis.connection, name });
    const raw = new Queue(name, { connection: redis.connection });
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(cases, async (c) => {
          n++;
          const { waiting } = await queue.counts();
          expectRefusal(await queue.send(sendWith(c.field, c.value), { id: `bad-${n}` }).catch((e: unknown) => e), c);
          expect((await queue.counts()).waiting).toBe(waiting);
          expect(await raw.getJob(`bad-${n}`)).toBeUndefined();
          await queue.send(sendWith(c.field, c.control), { id: `good-${n}` });
          expect((await queue.counts()).waiting).toBe(waiting + 1);
          const job = await raw.getJob(`good-${n}`);
          expect(keptValue(c.field, paramsOf(job))).toBe(c.control);
        }),
        { numRuns: EVERY_FIELD.length + 60, seed: SEED, examples: EVERY_FIELD },
      );
      const { waiting } = await queue.counts();
      for (const [, params] of BAD_PATHS) {
        const error = await queue.send(params).catch((e: unknown) => e);
        expect((error as ValidationError).issues).toEqual([pathIssue]);
      }
      expect((await queue.counts()).waiting).toBe(waiting);
      for (const [field, value] of WORLD_CASES) {
        const id = await queue.send(sendWith(field, value));
        const job = await raw.getJob(id);
        expect(keptValue(field, paramsOf(job))).toBe(value);
      }
    } finally {
      await raw.close();
      await queue.close();
    }
  });
});

describe.runIf(postgresAvailable())('outbox.add inside the caller’s PostgreSQL transaction', () => {
  let db: TestPostgres;
  let pool: pg.Pool;
  let queue: MessagingQueue;
  let outbox: MessagingOutbox;
  beforeAll(async () => {
    db = await startPostgresWithBullmq();
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    // Idle clients are cut when the cluster stops at the end: not this test's concern.
    pool.on('error', () => undefined);
    queue = new MessagingQueue({
      connection: { postgres: { connectionString: db.url, max: 2 } },
      name: uniqueName('ob'),
    });
    outbox = new MessagingOutbox({ queue, table: 'outbox_unstorable' });
    await outbox.migrate(pool);
    await pool.query('CREATE TABLE notes (id text PRIMARY KEY, body text NOT NULL)');
  }, 60_000);
  afterAll(async () => {
    await queue?.close();
    await pool?.end();
    await db?.stop();
  });

  /** The params the outbox holds for `id`, or undefined when it holds no row for it. */
  const row = async (id: string): Promise<Kept | undefined> =>
    (await pool.query('SELECT params FROM outbox_unstorable WHERE id = $1', [id])).rows[0]?.params;

  it('PostgreSQL itself refuses such text in jsonb, and the refusal aborts the transaction (why the check exists)', async () => {
    const client = await pool.connect();
    try {
      for (const bad of ['a\0b', 'a\uD800b']) {
        await client.query('BEGIN');
        await expect(client.query('SELECT $1::jsonb', [JSON.stringify({ content: bad })])).rejects.toThrow();
        await expect(client.query('SELECT 1')).rejects.toThrow(/current transaction is aborted/);
        await client.query('ROLLBACK');
      }
    } finally {
      client.release();
    }
  });

  it('refuses a NUL or a lone surrogate in any field; the transaction goes on and commits; the control is stored unchanged', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        n++;
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          // The refused add sends the transaction nothing at all.
          const sent: string[] = [];
          const spy = {
            query: (text: string, values?: unknown[]) => {
              sent.push(text);
              return client.query(text, values);
            },
          };
          expectRefusal(
            await outbox.add(spy, sendWith(c.field, c.value), { id: `bad-${n}` }).catch((e: unknown) => e),
            c,
          );
          expect(sent).toEqual([]);
          // The caller's transaction is untouched: their own statements run, and the control goes in.
          expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
          await client.query('INSERT INTO notes VALUES ($1, $2)', [`note-${n}`, c.control]);
          await outbox.add(client, sendWith(c.field, c.control), { id: `good-${n}` });
          await client.query('COMMIT');
        } finally {
          client.release();
        }
        expect((await pool.query('SELECT body FROM notes WHERE id = $1', [`note-${n}`])).rows).toEqual([
          { body: c.control },
        ]);
        expect(await row(`bad-${n}`)).toBeUndefined();
        const kept = await row(`good-${n}`);
        expect(kept && keptValue(c.field, kept)).toBe(c.control);
      }),
      { numRuns: EVERY_FIELD.length + 60, seed: SEED, examples: EVERY_FIELD },
    );
  });

  it('stores well-formed text of every script unchanged, and refuses a path it cannot store', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (const [name, params] of BAD_PATHS) {
        const error = await outbox.add(client, params, { id: `path-${name}` }).catch((e: unknown) => e);
        expect((error as ValidationError).issues).toEqual([pathIssue]);
      }
      for (const [field, value] of WORLD_CASES)
        await outbox.add(client, sendWith(field, value), { id: `world-${field}` });
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    for (const [field, value] of WORLD_CASES) {
      const kept = await row(`world-${field}`);
      expect(kept && keptValue(field, kept)).toBe(value);
    }
    for (const [name] of BAD_PATHS) expect(await row(`path-${name}`)).toBeUndefined();
  });
});
