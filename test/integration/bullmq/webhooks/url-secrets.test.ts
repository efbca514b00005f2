/**
 * An endpoint URL's secrets and WebhookRelay (the durable relay), on each backend (a real Redis,
 * a real PostgreSQL): credentials in a URL (`user:pass@`, `user@`, `:pass@`) are refused at
 * construction, before anything is read, sent or stored, by an error that quotes none of them; a
 * query and a fragment carrying random tokens (fast-check) are allowed, and whatever the endpoint
 * does (refuse the connection, time out, reset, answer 500 or 410, redirect, accept) no token
 * reaches the datastore (every key and row dumped: BullMQ's failedReason and stack traces
 * included) or the logger's lines, even when fetch's own error quotes the URL whole, decoded or
 * normalised (Node's fetch does, for a URL with credentials).
 */
import type { ServerResponse } from 'node:http';
import fc from 'fast-check';
import { MessagingQueue, MessagingWorker, WebhookRelay } from 'tenant-messaging/bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it as itRuns, vi } from 'vitest';
import { configError } from '../../../helpers/errors.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { uniqueName } from '../../../helpers/redis.js';
import { type CapturedRequest, refusedUrl, startServer, type TestServer } from '../../../helpers/server.js';
import { stubQuotingFetch, token } from '../../../helpers/url-secrets.js';
import { BACKENDS, type BackendFixture, fastWorker, startBackendFixture, text } from '../fixture.js';

const SECRET = `whsec_${Buffer.from(new Uint8Array(32).fill(9)).toString('base64')}`;
const servers: TestServer[] = [];
const arrived: CapturedRequest[] = [];
const { lines: logged, logger } = recordingLogger();

async function serve(handler: (req: CapturedRequest, res: ServerResponse) => void): Promise<string> {
  const server = await startServer((req, res) => {
    arrived.push(req);
    handler(req, res);
  });
  servers.push(server);
  return server.url;
}

const KINDS = ['refused', 'stall', 'reset', 'failing', 'gone', 'redirect', 'healthy'] as const;
/** The endpoints whose deliveries fail, and are given up at once (`retryFor: 1`). */
const GIVEN_UP = ['refused', 'stall', 'reset', 'failing', 'redirect'] as const;
let urls: Record<(typeof KINDS)[number], string>;
let delivered = 0;

beforeAll(async () => {
  const elsewhere = await serve((_req, res) => void res.writeHead(204).end());
  urls = {
    refused: await refusedUrl(),
    stall: await serve(() => undefined),
    reset: await serve((_req, res) => void res.socket?.destroy()),
    failing: await serve((_req, res) => void res.writeHead(500).end('try later')),
    gone: await serve((_req, res) => void res.writeHead(410).end()),
    // The Location quotes the request's query: a relay that read it would have the token.
    redirect: await serve((req, res) => void res.writeHead(302, { location: `${elsewhere}${req.url}` }).end()),
    healthy: await serve((_req, res) => {
      delivered++;
      res.writeHead(204).end();
    }),
  };
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const tokens = fc.record({ query: token('qry'), bare: token('bar'), fragment: token('frg') });

const withSecrets = (base: string, t: { query: string; bare: string; fragment: string }) =>
  `${base}/hooks?token=${encodeURIComponent(t.query)}&${encodeURIComponent(t.bare)}#${encodeURIComponent(t.fragment)}`;

/** Every form a token may take in a text: as is, percent-encoded, and as a form encodes it. */
const formsOf = (secret: string) => [
  secret,
  encodeURIComponent(secret),
  new URLSearchParams({ s: secret }).toString().slice(2),
];

const until = async (check: () => boolean, timeoutMs: number, what: () => string) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

let f: BackendFixture;

describe.each(BACKENDS)('WebhookRelay on %s and the secrets of an endpoint URL', (backend, available) => {
  beforeAll(async () => {
    if (available) f = await startBackendFixture(backend);
  }, 30_000);
  afterAll(async () => {
    await f?.close();
  });
  const it = available ? itRuns : itRuns.skip;

  it('refuses credentials in a URL at construction, before anything is read, sent or stored, never quoting them', async () => {
    const before = await f.dump();
    const sent = arrived.length;
    const credentials = fc
      .record({
        user: fc.option(token('usr'), { nil: undefined }),
        password: fc.option(token('pwd'), { nil: undefined }),
      })
      .filter(({ user, password }) => user !== undefined || password !== undefined);
    fc.assert(
      fc.property(credentials, fc.nat(2), ({ user, password }, position) => {
        const userinfo = `${encodeURIComponent(user ?? '')}${password === undefined ? '' : `:${encodeURIComponent(password)}`}@`;
        const endpoints = [
          { url: urls.healthy, secret: SECRET },
          { url: urls.failing, secret: SECRET },
        ];
        endpoints.splice(position, 0, {
          url: `${urls.healthy.replace('://', `://${userinfo}`)}/hooks`,
          secret: SECRET,
        });
        const error = configError(
          () => new WebhookRelay({ connection: f.connection, name: uniqueName('whs'), endpoints, logger }),
        );
        expect(error.issues).toEqual([
          { path: `endpoints[${position}].url`, message: expect.stringMatching(/credentials/) },
        ]);
        expect(error.message).toMatch(/secret/);
        for (const secret of [user, password].filter((s) => s !== undefined)) {
          for (const form of formsOf(secret)) expect(error.message).not.toContain(form);
        }
      }),
      { numRuns: 40 },
    );
    expect(arrived.length).toBe(sent);
    expect(await f.dump()).toBe(before);
  });

  it('keeps every token of a query and a fragment out of the datastore and the logs, whatever the endpoint does and whatever fetch says', async () => {
    stubQuotingFetch();
    // One set of random tokens for each endpoint (a new sample on every run of the file).
    const secrets = fc.sample(tokens, KINDS.length);
    const endpoints = KINDS.map((kind, i) => ({
      url: withSecrets(urls[kind], secrets[i] as (typeof secrets)[number]),
      secret: SECRET,
    }));
    const name = uniqueName('whs');
    // Counted from here: the other backend's run shares the servers and the logger.
    const [firstLine, deliveredBefore] = [logged.length, delivered];
    const queue = new MessagingQueue({ connection: f.connection, name });
    const worker = new MessagingWorker(fastWorker(f, name));
    const relay = new WebhookRelay({
      connection: f.connection,
      name,
      endpoints,
      timeout: 1_000,
      retryFor: 1,
      concurrency: 2,
      lockDuration: 2_000,
      stalledInterval: 1_000,
      logger,
    });
    try {
      await relay.ready();
      const ids = ['order-1', 'order-2'];
      for (const [i, id] of ids.entries()) await queue.send(text(i), { id });
      const givenUp = () =>
        logged.slice(firstLine).filter((line) => line.startsWith('webhook delivery given up')).length;
      await until(
        () => givenUp() >= ids.length * GIVEN_UP.length && delivered - deliveredBefore >= ids.length,
        30_000,
        () => `every delivery given up or made: ${logged.join('\n')}`,
      );
      expect(await relay.disabledEndpoints()).toHaveLength(1);
    } finally {
      await relay.close();
      await worker.close();
      await queue.close();
    }

    const everything = await f.dump();
    // What failed was stored (failedReason), and what was logged names the endpoints by origin and path.
    expect(everything).toContain('the endpoint answered 500');
    expect(everything).toContain('the endpoint answered 302');
    expect(everything).toContain('no answer within 1000 ms');
    expect(everything).toMatch(/ECONNREFUSED/);
    expect(everything).toContain(' (decoded '); // the quoting fetch's words, scrubbed
    const lines = logged.slice(firstLine).join('\n');
    expect(lines).toContain('410 Gone');
    for (const kind of GIVEN_UP) expect(lines).toContain(JSON.stringify(`${urls[kind]}/hooks`));
    for (const t of secrets) {
      for (const secret of Object.values(t)) {
        for (const form of formsOf(secret)) {
          // Booleans, not toContain: a failure would print the whole datastore.
          expect(everything.includes(form), `${JSON.stringify(form)} in the datastore`).toBe(false);
          expect(lines.includes(form), `${JSON.stringify(form)} in a log line`).toBe(false);
        }
      }
    }
  }, 60_000);
});
