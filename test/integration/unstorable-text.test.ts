/**
 * Text that no datastore, nor the API, can hold as given (a NUL, U+0000, or a lone UTF-16
 * surrogate) is refused with a `ValidationError` before anything is touched, the same on every
 * path, in every string field of a send that is sent or stored (content, the phones, a caption,
 * the media's file name and content type). Here `client.messages.send` against the sandbox over
 * HTTP: no request reaches it, nothing is stored; the paths that store a send (`queue.send` on
 * Redis, `outbox.add` in PostgreSQL) are in unstorable-text-stored.test.ts. The same string without
 * the bad character goes through, and well-formed text of any script (emoji, CJK, RTL, combining
 * marks) comes out exactly as it went in.
 */
import fc from 'fast-check';
import { MessagingClient, ValidationError } from 'tenant-messaging';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BAD_PATHS,
  cases,
  EVERY_FIELD,
  expectRefusal,
  pathIssue,
  SEED,
  sendWith,
  WORLD_CASES,
} from '../helpers/unstorable-text.js';

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
