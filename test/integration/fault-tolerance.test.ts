/**
 * The faults that depend on the wire, against the sandbox on loopback: a connection reset before
 * or after the request was processed, a body that stalls after its headers (the deadline covers
 * the body too: a real fetch fails the body when its signal aborts), and a huge body refused
 * without reading it into memory. Every other fault, on the in-process sandbox and fake timers:
 * test/unit/fault-tolerance.test.ts.
 */
import {
  APIConnectionError,
  APITimeoutError,
  MessagingClient,
  ResponseValidationError,
  SendOutcomeUnknownError,
} from 'tenant-messaging';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let sandbox: RunningSandbox;
let client: MessagingClient;
let sendNo = 0;

beforeAll(async () => {
  sandbox = await startSandbox();
  const acme = sandbox.tenants.acme as { baseUrl: string; keys: { full: string } };
  client = new MessagingClient({ baseUrl: acme.baseUrl, apiKey: acme.keys.full, timeout: 500 });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
afterEach(() => sandbox.reset());

/** A text send with a unique body, so stored copies can be counted. */
function send(options = {}) {
  const content = `fault-suite #${++sendNo}`;
  const promise = client.messages.send(
    { sender_phone: '+15550001001', to_phone: SANDBOX_PHONES.reads, type: 'text', content },
    options,
  );
  return { content, promise };
}
const stored = (content: string) => sandbox.messages('acme').filter((log) => log.content === content).length;
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok' as const,
    (error: unknown) => error,
  );

describe('connection resets on a real socket', () => {
  it('before the request is processed: the read retries; the send is not stored and not repeated', async () => {
    sandbox.faults.add({ kind: 'drop', route: 'getMessage', times: 1 });
    const first = await client.messages.send({
      sender_phone: '+15550001001',
      to_phone: '+15557654321',
      type: 'text',
      content: 'x',
    });
    await expect(client.messages.get(first.id)).resolves.toMatchObject({ id: first.id });

    sandbox.faults.add({ kind: 'drop', route: 'sendMessage', when: 'before', times: 1 });
    const { content, promise } = send();
    const error = await outcome(promise);
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    expect(stored(content)).toBe(0);
    expect(sandbox.counters.requests['POST /messages']).toBe(2);
  });

  it('after the send was processed: SendOutcomeUnknownError, stored exactly once', async () => {
    sandbox.faults.add({ kind: 'drop', route: 'sendMessage', when: 'after', times: 1 });
    const { content, promise } = send();
    const error = (await outcome(promise)) as SendOutcomeUnknownError;
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    expect(error.cause).toBeInstanceOf(APIConnectionError);
    expect(stored(content)).toBe(1);
  });
});

describe('stalls mid-body', () => {
  it('a server that stalls mid-body: the deadline covers the body too', async () => {
    sandbox.faults.add({ kind: 'stall', route: 'me', times: 1 });
    const error = await outcome(client.me({ timeout: 200, maxRetries: 0 }));
    expect(error).toBeInstanceOf(APITimeoutError);
  });

  it('a send that stalls mid-body after being stored: SendOutcomeUnknownError, stored once', async () => {
    sandbox.faults.add({ kind: 'stall', route: 'sendMessage', times: 1 });
    const { content, promise } = send({ timeout: 200 });
    expect(await outcome(promise)).toBeInstanceOf(SendOutcomeUnknownError);
    expect(stored(content)).toBe(1);
  });
});

describe('a huge body', () => {
  it('is refused without reading it into memory', async () => {
    sandbox.faults.add({ kind: 'huge', hugeBytes: 200 * 1024 * 1024, route: 'me', times: 1 });
    const before = process.memoryUsage().rss;
    const error = (await outcome(client.me({ maxRetries: 0 }))) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toContain('larger than 32 MiB');
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });
});
