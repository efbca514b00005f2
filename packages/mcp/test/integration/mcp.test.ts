/**
 * `tenant-messaging-mcp`'s tools in this process (the server factory over the MCP SDK's in-memory
 * transport, driven by the SDK's own Client) against the sandbox: the tool list and its schemas,
 * every read tool, errors as tool results, hostile arguments (fast-check) and the key never shown.
 * The approval flow is in mcp-send.test.ts; the bin over stdio and HTTP in mcp-bin.test.ts.
 */
import fc from 'fast-check';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
// The SDK's own send schema (test code only): what prepare_send's JSON Schema must show.
import { sendMessageParamsZod } from '../../../../src/schemas/send.js';
import { recipientList } from '../../src/access/recipients.js';
import { INPUTS } from '../../src/schemas/schemas.js';
import { mcpSettings, TOKEN_ENV } from '../../src/shell/options.js';
import { type Fixture, startFixture, text } from './mcp-fixture.js';

const SENDER = '+15550001001';
const READ_TOOLS = [
  'get_message',
  'list_messages',
  'wait_for_delivery',
  'lookup_contact',
  'list_sender_numbers',
  'get_usage',
];

let fx: Fixture;
let logId: number;

beforeAll(async () => {
  fx = await startFixture();
  const log = await fx.client().messages.send({
    sender_phone: SENDER,
    to_phone: SANDBOX_PHONES.reads,
    type: 'text',
    content: 'Order 1042 shipped',
  });
  logId = log.id;
});
afterEach(() => fx.disconnect());
afterAll(() => fx?.close());

describe('tools/list', () => {
  it('is read-only by default: the six read tools, each with input and output schemas from the SDK’s Zod schemas', async () => {
    const { tools } = await fx.connect();
    expect(tools.map((tool) => tool.name)).toEqual(READ_TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(tool.description?.length, tool.name).toBeGreaterThan(20);
    }
    const get = tools.find((tool) => tool.name === 'get_message');
    expect(get?.inputSchema).toMatchObject({ properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] });
    // The MessageLog of spec section 2.1, as messageLogShape says it.
    expect(get?.outputSchema?.required).toEqual([
      'id',
      'sender_number_id',
      'recipient_user_id',
      'conversation_id',
      'message_id',
      'message_type',
      'content',
      'status',
      'delivery_status',
      'request_payload',
      'response_payload',
      'sent_at',
    ]);
    const wait = tools.find((tool) => tool.name === 'wait_for_delivery');
    expect(Object.keys(wait?.inputSchema.properties ?? {})).toEqual(['id', 'timeout', 'until']);
    expect(tools.find((tool) => tool.name === 'lookup_contact')?.inputSchema.required).toEqual([
      'phone',
      'sender_phone',
    ]);
  });

  it('with --allow-send adds prepare_send (the text branch of the send schema) and send_message ({ approval } only)', async () => {
    const { tools } = await fx.connect({ allowSend: true });
    expect(tools.map((tool) => tool.name)).toEqual([...READ_TOOLS, 'prepare_send', 'send_message']);
    const prepare = tools.find((tool) => tool.name === 'prepare_send');
    expect(Object.keys(prepare?.inputSchema.properties ?? {})).toEqual([
      'sender_phone',
      'sender_number_id',
      'to_phone',
      'type',
      'content',
    ]);
    expect(prepare?.inputSchema).toMatchObject({
      required: ['to_phone', 'type', 'content'],
      additionalProperties: false,
      properties: { type: { const: 'text' }, content: { minLength: 1 }, sender_number_id: { minimum: 1 } },
    });
    expect(prepare?.outputSchema?.required).toEqual(['approval', 'expires_at', 'preview']);
    const send = tools.find((tool) => tool.name === 'send_message');
    expect(send?.inputSchema).toMatchObject({ required: ['approval'], additionalProperties: false });
    expect(Object.keys(send?.inputSchema.properties ?? {})).toEqual(['approval']);
    expect(send?.outputSchema?.required).toContain('delivery_status');
    expect(send?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
  });
  it('shows each input as z.toJSONSchema shows the Zod schema that checks it (the SDK’s send schema for prepare_send)', async () => {
    const { tools } = await fx.connect({ allowSend: true });
    // Descriptions are for the model; an integer's safe-range bound is implied.
    const plain = (schema: unknown) =>
      JSON.parse(
        JSON.stringify(schema, (key, value) =>
          key === 'description' || key === '$schema' || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)
            ? undefined
            : value,
        ),
      );
    const served = (name: string) => plain(tools.find((tool) => tool.name === name)?.inputSchema);
    for (const [name, schema] of Object.entries(INPUTS)) {
      expect(served(name), name).toEqual(plain(z.toJSONSchema(schema, { target: 'draft-07', io: 'input' })));
    }
    const [text] = sendMessageParamsZod._zod.def.options;
    const send = plain(z.toJSONSchema(text, { target: 'draft-07', io: 'input', unrepresentable: 'any' }));
    delete send.properties.media;
    expect(served('prepare_send')).toEqual(send);
  });
});

describe('the read tools', () => {
  it('get_message, list_messages and wait_for_delivery return the log (id and delivery_status), structured and in a line', async () => {
    const { call } = await fx.connect();
    const got = await call('get_message', { id: logId });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent).toMatchObject({ id: logId, content: 'Order 1042 shipped' });
    expect(got.structuredContent?.['delivery_status']).toEqual(expect.any(String));
    expect(text(got)).toContain(`Message log ${logId}: text to ${SANDBOX_PHONES.reads}`);

    const listed = await call('list_messages', { page: 1 });
    const messages = listed.structuredContent?.['messages'] as { id: number }[];
    expect(messages.map((log) => log.id)).toContain(logId);
    expect(listed.structuredContent).toMatchObject({ page: { current_page: 1 }, next_page: null });
    // The counters only: the paginator's link labels are HTML for a web page (`&laquo; Previous`).
    expect(Object.values((listed.structuredContent as { page: object }).page).every(Number.isInteger)).toBe(true);

    const waited = await call('wait_for_delivery', { id: logId, until: 'read', timeout: 5_000 });
    expect(waited.structuredContent).toMatchObject({ id: logId, delivery_status: 'read' });
  });

  it('lookup_contact, list_sender_numbers and get_usage return what the API answered', async () => {
    const { call } = await fx.connect();
    const lookup = await call('lookup_contact', { phone: SANDBOX_PHONES.unreachable, sender_phone: SENDER });
    expect(lookup.structuredContent).toMatchObject({ phone: SANDBOX_PHONES.unreachable, reachable: false });
    const senders = await call('list_sender_numbers');
    expect(senders.structuredContent?.['sender_numbers']).toEqual(
      expect.arrayContaining([expect.objectContaining({ phone: SENDER, id: 1 })]),
    );
    expect(text(senders)).toContain(`${SENDER} (id 1, status active)`);
    const usage = await call('get_usage');
    expect(usage.structuredContent).toMatchObject({ messages: { sent: expect.any(Number) } });
  });

  it('an unknown id is a tool error saying the log was not found; bad arguments and a timeout are tool errors too', async () => {
    const { call } = await fx.connect();
    for (const name of ['get_message', 'wait_for_delivery']) {
      const missing = await call(name, { id: 987_654 });
      expect(missing.isError, name).toBe(true);
      expect(text(missing), name).toMatch(/^Message log 987654 was not found: .*\(404: /);
    }
    const bad = await call('get_message', { id: 'forty-two', extra: true });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('Invalid arguments for get_message:\n  - id: Invalid input: expected number');
    expect(text(bad)).toContain('Unrecognized key: "extra"');
    const late = await fx
      .client()
      .messages.send({ sender_phone: SENDER, to_phone: SANDBOX_PHONES.neverDelivered, type: 'text', content: 'x' });
    const timedOut = await call('wait_for_delivery', { id: late.id, timeout: 1_000 });
    expect(timedOut.isError).toBe(true);
    expect(text(timedOut)).toMatch(/was not delivered within 1 s: its delivery_status is still 'sent'/);
    const unknown = await call('no_such_tool');
    expect(text(unknown)).toMatch(/^There is no tool named 'no_such_tool'\. Tools: get_message, /);
  });

  it('a refused key is a tool error that tells the model to tell the person; the key is not in it', async () => {
    const { call } = await fx.connect({ client: fx.client('acme', 'revoked') });
    const refused = await call('get_usage');
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^The API refused this server’s key \(401\): .*Tell the person running this server/);
  });

  it('sending is off without --allow-send: prepare_send and send_message are refused, nothing sent', async () => {
    const { call } = await fx.connect();
    const before = fx.posts();
    const refused = await call('prepare_send', {
      sender_phone: SENDER,
      to_phone: SANDBOX_PHONES.reads,
      type: 'text',
      content: 'x',
    });
    expect(text(refused)).toMatch(/^Sending is off: this server is read-only \(started without --allow-send\)/);
    expect((await call('send_message', { approval: 'tma_x' })).isError).toBe(true);
    expect(fx.posts()).toBe(before);
  });
});

/**
 * Any code point but a surrogate, as fast-check's `unit: 'binary'` draws them, without the second
 * its table of every code point takes to build in each worker.
 */
const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff - 0x800 })
  .map((code) => String.fromCodePoint(code < 0xd800 ? code : code + 0x800));

describe('hostile arguments', () => {
  it('any arguments get a result (a tool error when wrong), never a crash, and the server keeps answering', async () => {
    // globex has sent nothing: every id it is asked about is a quick 404, never a long wait.
    const { call, mcp } = await fx.connect({ client: fx.client('globex'), allowSend: true });
    const before = fx.posts();
    const names = fc.constantFrom(...READ_TOOLS, 'prepare_send', 'send_message', 'nope', '__proto__', '');
    const value = fc.oneof(fc.anything({ maxDepth: 2 }), fc.string({ unit: anyCodePoint }), fc.integer(), fc.double());
    const args = fc.record(
      {
        id: value,
        page: value,
        timeout: fc.oneof(value, fc.integer({ min: -5, max: 1_500 })),
        until: value,
        phone: value,
        sender_phone: fc.oneof(value, fc.constant(SENDER)),
        sender_number_id: value,
        to_phone: fc.oneof(value, fc.constant(SANDBOX_PHONES.reads)),
        type: fc.oneof(value, fc.constantFrom('text', 'image')),
        content: value,
        approval: fc.oneof(value, fc.string({ minLength: 1, maxLength: 300 })),
        __proto__: value,
        constructor: value,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(names, fc.oneof(args, fc.dictionary(fc.string(), value)), async (name, given) => {
        const result = await call(name, given as Record<string, unknown>);
        expect(Array.isArray(result.content)).toBe(true);
        if (!result.isError && name !== 'prepare_send') expect(result.structuredContent).toBeDefined();
      }),
      { numRuns: 120, seed: 30 },
    );
    expect((await mcp.listTools()).tools).toHaveLength(8);
    expect(fx.posts()).toBe(before);
  });
});

describe('the settings', () => {
  it('--http needs TENANT_MESSAGING_MCP_TOKEN, a loopback host, and a long token; limits need --allow-send', () => {
    expect(() => mcpSettings({ http: '127.0.0.1:8808' }, {}, false)).toThrow(TOKEN_ENV);
    expect(() => mcpSettings({ http: '0.0.0.0:8808' }, { [TOKEN_ENV]: 'x'.repeat(32) }, false)).toThrow(
      /loopback only/,
    );
    expect(() => mcpSettings({ http: '127.0.0.1:8808' }, { [TOKEN_ENV]: 'short' }, false)).toThrow(/too short/);
    expect(() => mcpSettings({ maxSends: '3' }, {}, false)).toThrow(/--max-sends limits sending, which is off/);
    expect(() => mcpSettings({}, { TENANT_MESSAGING_LOG: 'loud' }, false)).toThrow(
      /TENANT_MESSAGING_LOG must be one of/,
    );
    const settings = mcpSettings(
      { http: '[::1]:0', allowSend: true, maxSends: '2', allowRecipients: '+1555*' },
      { [TOKEN_ENV]: 't'.repeat(16), TENANT_MESSAGING_LOG: 'warn' },
      false,
    );
    expect(settings).toMatchObject({ http: { host: '[::1]', port: 0 }, maxSends: 2, logLevel: 'warn' });
  });

  it('--allow-recipients matches phones with * for any digits, separators ignored', () => {
    const list = recipientList('+1555*, +44 7911 123456');
    expect(list.allows('+15550102030')).toBe(true);
    expect(list.allows('+1 (555) 010-2030')).toBe(true);
    expect(list.allows('+447911123456')).toBe(true);
    expect(list.allows('+447911123457')).toBe(false);
    expect(list.allows('+1556')).toBe(false);
    expect(list.allows('+1555abc')).toBe(false);
    expect(recipientList('*').allows('+447911123456')).toBe(true);
    expect(() => recipientList('+1555*,bob')).toThrow(/'bob' is not a phone pattern/);
    expect(() => recipientList(' , ')).toThrow(/comma-separated list/);
  });
});

describe('the API key', () => {
  it('appears in no result of this file', () => {
    expect(fx.seen.length).toBeGreaterThan(100);
    for (const result of fx.seen) for (const key of fx.keys) expect(result).not.toContain(key);
  });
});
