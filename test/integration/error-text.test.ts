/**
 * The SDK's own messages quote a cause's text as it was: a send cut by a proxy's 502 once read
 * "...but hTTP 502 Bad Gateway", its first letter lowered blindly. Whatever the cause says (a
 * service's `message`, a proxy page's title, the SDK's own transport text), the outcome-unknown
 * message holds it verbatim, so no word of it changes case.
 */
import fc from 'fast-check';
import {
  APIConnectionError,
  APIError,
  MessagingClient,
  OutcomeUnknownError,
  SendOutcomeUnknownError,
} from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, type TestServer } from '../helpers/server.js';

/** What the server answers next: a JSON error body or a proxy's HTML page. */
type Answer = { kind: 'json'; status: number; message: string } | { kind: 'html'; status: number; title: string };

let server: TestServer;
let next: Answer = { kind: 'json', status: 500, message: 'Server Error' };
let client: MessagingClient;

beforeAll(async () => {
  server = await startServer((_req, res) => {
    const answer = next;
    if (answer.kind === 'json') return json(res, answer.status, { message: answer.message });
    res.writeHead(answer.status, { 'content-type': 'text/html' });
    res.end(`<html><head><title>${answer.title}</title></head><body><h1>${answer.title}</h1></body></html>`);
  });
  client = new MessagingClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
});
afterAll(() => server.close());

const text = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'hi' } as const;

/** Words of any case, acronyms and names first among them, as a service or a proxy writes them. */
const word = fc.oneof(
  fc.constantFrom('HTTP', 'Bad', 'Gateway', 'ECONNRESET', 'nginx', 'iPhone', 'API', 'The', 'service', 'ÉTÉ', 'Ünïcode'),
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,11}$/),
);
const sentence = fc
  .tuple(fc.array(word, { minLength: 1, maxLength: 8 }), fc.constantFrom('', '.', '!', '?', ' '))
  .map(([words, end]) => words.join(' ') + end);
/** Statuses at which a send's outcome is unknown: the request reached something that did not answer for it. */
const unknownStatus = fc.constantFrom(500, 502, 503, 504, 520);

/** `error.message` must hold the cause's message verbatim (trimmed), and with it every word's case. */
function expectQuoted(error: unknown): void {
  expect(error).toBeInstanceOf(OutcomeUnknownError);
  const cause = (error as OutcomeUnknownError).cause as Error;
  expect(cause).toBeInstanceOf(Error);
  expect((error as Error).message).toContain(cause.message.trim());
}

describe("outcome-unknown messages quote the cause's text as it was", () => {
  it('a send answered 5xx with any JSON message, or with a proxy page of any title', async () => {
    await fc.assert(
      fc.asyncProperty(unknownStatus, sentence, fc.boolean(), async (status, said, asHtml) => {
        next = asHtml ? { kind: 'html', status, title: said } : { kind: 'json', status, message: said };
        const error = await client.messages.send(text).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SendOutcomeUnknownError);
        expect((error as SendOutcomeUnknownError).cause).toBeInstanceOf(APIError);
        expectQuoted(error);
      }),
      { seed: 17, numRuns: 60 },
    );
  });

  it('a non-GET client.request() answered 5xx, likewise', async () => {
    await fc.assert(
      fc.asyncProperty(unknownStatus, sentence, async (status, said) => {
        next = { kind: 'json', status, message: said };
        const error = await client.request({ method: 'POST', path: '/things', body: {} }).catch((e: unknown) => e);
        expectQuoted(error);
        expect((error as Error).message).toMatch(/^POST \/things may have been processed/);
      }),
      { seed: 18, numRuns: 30 },
    );
  });

  it("the 502 of a proxy reads 'HTTP 502 Bad Gateway', not 'hTTP'", async () => {
    next = { kind: 'html', status: 502, title: '502 Bad Gateway' };
    const error = await client.messages.send(text).catch((e: unknown) => e);
    expectQuoted(error);
    expect((error as Error).message).not.toMatch(/\bhTTP\b/);
    expect((error as Error).message).toMatch(/no answer says what happened\. .*502 Bad Gateway/);
  });

  it("the SDK's own transport text (a connection reset while waiting for the answer), likewise", async () => {
    const reset = await startServer((_req, res) => {
      res.socket?.destroy();
    });
    try {
      const sender = new MessagingClient({ baseUrl: reset.url, apiKey: 'k', maxRetries: 0 });
      const error = await sender.messages.send(text).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SendOutcomeUnknownError);
      expectQuoted(error);
      await sender.close();
    } finally {
      await reset.close();
    }
  });

  it("a connection error quotes its cause's text as one sentence, whatever it ends with (no '..', no case changed)", async () => {
    // Cloudflare Workers' fetch fails with 'Network connection lost.': the message read '...lost..'.
    await fc.assert(
      fc.asyncProperty(sentence, async (said) => {
        const failing = new MessagingClient({
          baseUrl: server.url,
          apiKey: 'k',
          maxRetries: 0,
          fetch: async () => {
            throw new TypeError(said);
          },
        });
        const error = await failing.messages.get(1).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(APIConnectionError);
        const message = (error as Error).message;
        expect(message).toContain(said.trim().replace(/[.\s]+$/, ''));
        expect(message).not.toMatch(/\.\s*\./);
      }),
      { seed: 19, numRuns: 60 },
    );
  });
});
