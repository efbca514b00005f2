/**
 * Refusals and descriptions, in this process against the sandbox. A refusal that quotes a long
 * input quotes it shortened, whoever wrote the refusal (this server, the SDK's checks, zod):
 * fast-check sends long inputs to every refusal that may quote one. In read-only mode, no tool's
 * description, schema or the server's instructions names a tool that is not listed.
 */
import fc from 'fast-check';
import { QUOTE_MAX, quoteInput, UsageError } from 'tenant-messaging-bin-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recipientList } from '../../src/access/recipients.js';
import { parseCommandLine } from '../../src/shell/command.js';
import { mcpSettings } from '../../src/shell/options.js';
import { type Connected, type Fixture, startFixture, text } from './mcp-fixture.js';

const SENDER = '+15550001001';

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
});
afterEach(() => fx.disconnect());
afterAll(() => fx?.close());

/** A long input: a phone's digits, or any text, longer than a refusal may quote. */
const long = fc.oneof(
  fc.integer({ min: QUOTE_MAX + 1, max: 6_000 }).map((length) => `+1${'5'.repeat(length)}`),
  fc.string({ minLength: QUOTE_MAX + 1, maxLength: 400, unit: 'grapheme' }).filter((text) => text.trim() === text),
);

/** Each call that refuses a long input, and may quote it. */
const REFUSED: Record<string, (server: Connected, input: string) => ReturnType<Connected['call']>> = {
  'a recipient outside --allow-recipients': (server, input) =>
    server.call('prepare_send', { sender_phone: SENDER, to_phone: input, type: 'text', content: 'x' }),
  'an unknown tool': (server, input) => server.call(input),
  'an unknown argument of a read tool': (server, input) => server.call('get_message', { id: 1, [input]: 1 }),
  'an unknown field of prepare_send': (server, input) =>
    server.call('prepare_send', { sender_phone: SENDER, to_phone: SENDER, type: 'text', content: 'x', [input]: 1 }),
  'a bad type': (server, input) =>
    server.call('prepare_send', { sender_phone: SENDER, to_phone: SENDER, type: input, content: 'x' }),
  'an unknown approval': (server, input) => server.call('send_message', { approval: input.slice(0, 200) }),
};

describe('refusals', () => {
  it('quote a long input shortened, whichever refusal and whoever wrote it (fast-check)', async () => {
    const server = await fx.connect({ allowSend: true, allowRecipients: '+1555765*' });
    const before = fx.posts();
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(long, fc.constantFrom(...Object.keys(REFUSED)), async (input, refusal) => {
        runs++;
        const result = await REFUSED[refusal]?.(server, input);
        const said = text(result ?? { content: [] });
        expect(result?.isError, said).toBe(true);
        for (const spelling of [input, JSON.stringify(input).slice(1, -1)]) expect(said).not.toContain(spelling);
        expect(said.length, said).toBeLessThan(1_000);
      }),
      { numRuns: 120 },
    );
    expect(runs).toBe(120);
    expect(fx.posts()).toBe(before);
  });

  it('a long input that holds a secret is redacted before it is shortened: no cut keeps part of it', async () => {
    const secret = 'tmk_secret+token/0123456789abcdefABCDEF';
    const server = await fx.connect({ allowSend: true, allowRecipients: '+1555765*', secrets: [secret] });
    let quoting = 0;
    for (const [refusal, call] of Object.entries(REFUSED)) {
      // Its first 40 characters would hold most of the secret if it were cut first.
      const said = text(await call(server, `+1${secret}${'5'.repeat(100)}`));
      if (said.includes('[redacted]')) quoting++;
      expect(said, refusal).not.toContain(secret.slice(0, 12));
    }
    expect(quoting).toBeGreaterThanOrEqual(4);
  });

  it('the recipient refusal shows the start, the end and the length of a 5,012-character phone', async () => {
    const server = await fx.connect({ allowSend: true, allowRecipients: '+1555765*' });
    const phone = `+1${'5'.repeat(5_010)}`;
    const refused = await server.call('prepare_send', {
      sender_phone: SENDER,
      to_phone: phone,
      type: 'text',
      content: 'x',
    });
    // As every refusal of both bins quotes input: its first 40 and last 12 characters, its length.
    expect(text(refused)).toMatch(/^'\+15{38}…5{12}' \(5,012 characters\) is not among the recipients/);
    expect(text(refused).startsWith(`${quoteInput(phone)} is not among`)).toBe(true);
  });
});

describe('usage errors', () => {
  it('quote a long flag, value or variable shortened (fast-check)', () => {
    const refusals: ((input: string) => unknown)[] = [
      (input) => parseCommandLine([`--${input}`]),
      (input) => mcpSettings({ allowSend: true, maxSends: input }, {}, false),
      (input) => mcpSettings({ http: input }, {}, false),
      (input) => mcpSettings({ http: `${input}:80` }, {}, false),
      (input) => mcpSettings({}, { TENANT_MESSAGING_LOG: input }, false),
      (input) => recipientList(`+1555*,x${input}`),
    ];
    fc.assert(
      fc.property(long, fc.constantFrom(...refusals.keys()), (input, i) => {
        const message = (() => {
          try {
            refusals[i]?.(input);
            return '';
          } catch (error) {
            return error instanceof UsageError ? error.message : String(error);
          }
        })();
        expect(message).not.toBe('');
        expect(message).not.toContain(input);
        expect(message.length).toBeLessThan(1_000);
      }),
      { numRuns: 120 },
    );
    expect(() => mcpSettings({ allowSend: true, maxSends: '0' }, {}, false)).toThrow(", got '0'");
  });
});

describe('descriptions', () => {
  it('in read-only mode, name no tool that is not listed (descriptions, schemas, instructions)', async () => {
    const all = (await fx.connect({ allowSend: true })).tools.map((tool) => tool.name);
    const readOnly = await fx.connect();
    const listed = readOnly.tools.map((tool) => tool.name);
    const unlisted = all.filter((name) => !listed.includes(name));
    expect(unlisted).toEqual(['prepare_send', 'send_message']);
    const shown = [readOnly.mcp.getInstructions() ?? '', ...readOnly.tools.map((tool) => JSON.stringify(tool))];
    for (const said of shown) for (const name of unlisted) expect(said).not.toContain(name);
  });
});
