/**
 * Every row of the endpoint table, called through the SDK against the sandbox (the one fake of
 * the API), over both transports. The cases are keyed by endpoint name: a new row in ENDPOINTS
 * does not compile until it has a case here. Each case asserts what crossed the wire (method,
 * path filled from the row's template, query, headers, body) and what the call resolved with.
 */

import { MessagingClient } from 'tenant-messaging';
import { createSandbox, type Sandbox, startSandbox } from 'tenant-messaging/sandbox';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The endpoint table itself (internal): every row must have a case here.
import { ENDPOINTS, type EndpointName } from '../../src/endpoints.js';

/** What a request looked like on the wire, whichever transport carried it. */
interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

/** One endpoint's case: how a user calls it, the path ids it fills, and what it resolves with. */
interface Case {
  readonly call: (client: MessagingClient, sandbox: Sandbox) => Promise<unknown>;
  /** The `{name}`s of the row's template, as the call fills them. */
  readonly params?: Readonly<Record<string, number>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly check: (result: unknown, seen: Seen, sandbox: Sandbox) => void;
}

const ACME_SENDER = '+15550001001';
const RECIPIENT = '+15557654321';

const CASES = {
  me: {
    call: (client) => client.me(),
    check: (result) => expect(result).toMatchObject({ tenant: { slug: 'acme' }, environment: 'sandbox' }),
  },
  subscription: {
    call: (client) => client.subscription(),
    check: (result) => expect(result).toHaveProperty('status'),
  },
  usage: {
    call: (client) => client.usage(),
    check: (result) => expect(typeof result).toBe('object'),
  },
  listSenderNumbers: {
    call: (client) => client.senderNumbers.list(),
    check: (result) =>
      expect(result).toEqual(expect.arrayContaining([expect.objectContaining({ phone: ACME_SENDER })])),
  },
  lookupContact: {
    call: (client) => client.contacts.lookup({ phone: RECIPIENT, sender_phone: ACME_SENDER }),
    query: { phone: RECIPIENT, sender_phone: ACME_SENDER },
    check: (result) => expect(typeof result).toBe('object'),
  },
  sendMessage: {
    call: (client) =>
      client.messages.send({ sender_phone: ACME_SENDER, to_phone: RECIPIENT, type: 'text', content: 'Hello' }),
    check: (result, seen, sandbox) => {
      expect(seen.headers['content-type']).toBe('application/json');
      expect(JSON.parse(seen.body)).toEqual({
        sender_phone: ACME_SENDER,
        to_phone: RECIPIENT,
        type: 'text',
        content: 'Hello',
      });
      const stored = sandbox.messages('acme').at(-1);
      expect(result).toMatchObject({ id: stored?.id, content: 'Hello', delivery_status: 'sent' });
    },
  },
  getMessage: {
    call: (client) => client.messages.get(1),
    params: { messageLog: 1 },
    check: (result) => expect(result).toMatchObject({ id: 1 }),
  },
  listMessages: {
    call: (client) => client.messages.list({ page: 1 }).then((page) => page.data),
    query: { page: '1' },
    check: (result) => expect(Array.isArray(result)).toBe(true),
  },
} satisfies Record<EndpointName, Case>;

/** The path a row's template gives with the case's ids filled in. */
function expectedPath(name: EndpointName, params: Readonly<Record<string, number>> = {}): string {
  return `/t/acme/api/v1${ENDPOINTS[name].path.replace(/\{(\w+)\}/g, (_, param: string) => String(params[param]))}`;
}

function record(seen: Seen[], method: string, url: URL, headers: Record<string, string>, body: string): void {
  seen.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body });
}

/** A dispatcher that records each request it carries, then passes it on to a real Agent. */
function recordingAgent(seen: Seen[]): Dispatcher {
  return new Agent().compose((dispatch) => (options, handler) => {
    const headers: Record<string, string> = {};
    const raw = options.headers as Record<string, string> | undefined;
    for (const [name, value] of Object.entries(raw ?? {})) headers[name.toLowerCase()] = String(value);
    const body = typeof options.body === 'string' ? options.body : '';
    record(seen, options.method, new URL(options.path, String(options.origin)), headers, body);
    return dispatch(options, handler);
  });
}

const harnesses = {
  async 'undici to the sandbox server'() {
    const seen: Seen[] = [];
    const sandbox = await startSandbox();
    const dispatcher = recordingAgent(seen);
    const tenant = sandbox.tenants['acme'];
    const client = new MessagingClient({ baseUrl: tenant?.baseUrl, apiKey: tenant?.keys.full, dispatcher });
    return {
      seen,
      sandbox,
      client,
      close: async () => {
        await dispatcher.close();
        await sandbox.close();
      },
    };
  },
  async "fetch to the sandbox's in-process handler"() {
    const seen: Seen[] = [];
    const sandbox = createSandbox();
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      const headers = Object.fromEntries(request.headers);
      record(seen, request.method, new URL(request.url), headers, await request.clone().text());
      return sandbox.fetch(request);
    };
    const tenant = sandbox.tenants['acme'];
    const client = new MessagingClient({ baseUrl: tenant?.baseUrl, apiKey: tenant?.keys.full, fetch });
    return { seen, sandbox, client, close: async () => undefined };
  },
};

describe.each(Object.keys(harnesses) as (keyof typeof harnesses)[])('every endpoint of the table, %s', (name) => {
  let ctx: Awaited<ReturnType<(typeof harnesses)[typeof name]>>;
  beforeAll(async () => {
    ctx = await harnesses[name]();
    // A log to read: the sandbox starts empty.
    await ctx.client.messages.send({ sender_phone: ACME_SENDER, to_phone: RECIPIENT, type: 'text', content: 'First' });
  });
  afterAll(() => ctx.close());

  it.each(Object.keys(CASES) as EndpointName[])('%s', async (endpoint) => {
    const spec: Case = CASES[endpoint];
    const before = ctx.seen.length;
    const result = await spec.call(ctx.client, ctx.sandbox);
    expect(ctx.seen.length).toBe(before + 1);
    const seen = ctx.seen.at(-1) as Seen;
    expect(seen).toMatchObject({ method: ENDPOINTS[endpoint].method, path: expectedPath(endpoint, spec.params) });
    expect(seen.query).toEqual(spec.query ?? {});
    expect(seen.headers['x-api-key']).toBe(ctx.sandbox.tenants['acme']?.keys.full);
    expect(seen.headers['accept']).toBe('application/json');
    spec.check(result, seen, ctx.sandbox);
  });
});
