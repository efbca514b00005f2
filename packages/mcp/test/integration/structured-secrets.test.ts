/**
 * Every tool result goes through one redaction, `structuredContent` as well as its text: a message
 * log whose content (or a page of them) holds the API key or the bearer token, in any encoding the
 * tests know (decodings.ts: raw, percent-encoded once or four times, base64, hex, UTF-16 either
 * way...), shows neither in get_message's or list_messages's answer, decoded every way.
 */
import fc from 'fast-check';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { ENCODINGS, tracesOf } from '../../../bin-kit/test/decodings.js';
import { fixtureForFile } from './mcp-fixture.js';

const fx = fixtureForFile();
const TOKEN = 'mcp+token/Ünï=0123456789abcdef';

/** The key or the token in one of the encodings the tests know, and a text to put around it. */
const secretIn = (key: string) =>
  fc
    .record({
      encoding: fc.constantFrom(...Object.keys(ENCODINGS)),
      secret: fc.constantFrom(key, TOKEN),
      around: fc.string({ maxLength: 12 }),
    })
    .map(({ encoding, secret, around }) => ({
      encoding,
      encoded: (ENCODINGS[encoding] as (secret: string) => string)(secret),
      around,
    }));

describe('structuredContent', () => {
  it('carries no secret the text would not: any encoding of the key or the token, in a log or a page of logs', async () => {
    const client = fx.client();
    const key = fx.sandbox.tenants['acme']?.keys.full as string;
    const { call } = await fx.connect({ secrets: [key, TOKEN] });
    await fc.assert(
      fc.asyncProperty(secretIn(key), async ({ encoding, encoded, around }) => {
        const content = `${around} ${encoded} ${around}`;
        const log = await client.messages.send({
          sender_phone: '+15550001001',
          to_phone: SANDBOX_PHONES.reads,
          type: 'text',
          content,
        });
        const got = await call('get_message', { id: log.id });
        const listed = await call('list_messages', { page: 1 });
        const page = (listed.structuredContent?.['messages'] ?? []) as { id: number }[];
        // The whole answer of the one, and this log's entry and the text of the page.
        for (const shown of [
          JSON.stringify(got),
          JSON.stringify(page.find((entry) => entry.id === log.id) ?? null),
          JSON.stringify(listed.content),
        ]) {
          expect(got.isError || listed.isError, shown.slice(0, 300)).toBeFalsy();
          expect(tracesOf(shown, [key, TOKEN]), `${encoding}: ${shown.slice(0, 300)}`).toEqual([]);
        }
      }),
      { numRuns: 20 },
    );
  });
});

describe('prepare_send', () => {
  it('refuses a message whose text holds the key or the token, in any encoding: no approval, no preview, nothing sent', async () => {
    const key = fx.sandbox.tenants['acme']?.keys.full as string;
    const { call } = await fx.connect({ secrets: [key, TOKEN], allowSend: true });
    const posts = fx.posts();
    await fc.assert(
      fc.asyncProperty(secretIn(key), async ({ encoding, encoded, around }) => {
        const result = await call('prepare_send', {
          sender_phone: '+15550001001',
          to_phone: SANDBOX_PHONES.reads,
          type: 'text',
          content: `Your code: ${around} ${encoded} ${around}`,
        });
        const shown = JSON.stringify(result);
        expect(result.isError, `${encoding}: ${shown.slice(0, 300)}`).toBe(true);
        expect(shown).toContain('holds a secret of this server');
        expect(shown).not.toContain('tma_');
        expect(tracesOf(shown, [key, TOKEN])).toEqual([]);
      }),
      { numRuns: 40 },
    );
    expect(fx.posts()).toBe(posts);
    // A message without one is prepared as before.
    const fine = await call('prepare_send', {
      sender_phone: '+15550001001',
      to_phone: SANDBOX_PHONES.reads,
      type: 'text',
      content: 'Your order 1042 has shipped',
    });
    expect(fine.isError).toBeFalsy();
  });
});
