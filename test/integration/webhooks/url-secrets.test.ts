/**
 * An endpoint URL's secrets and relayWebhooks (one process), tested as a class with fast-check:
 * credentials in a URL (`user:pass@`, `user@`, `:pass@`) are refused before any update is read or
 * any request sent, by an error that quotes none of them; a query and a fragment carrying random
 * tokens are allowed, and whatever the endpoint does (refuse the connection, time out, reset,
 * answer 500 or 410, redirect, accept) no token reaches `onAttempt`'s reports or an error, even
 * when fetch's own error quotes the URL whole, decoded or normalised (Node's fetch does, for a URL
 * with credentials).
 */
import type { ServerResponse } from 'node:http';
import fc from 'fast-check';
import { ValidationError } from 'tenant-messaging';
import { type FleetUpdate, relayWebhooks, type WebhookAttempt } from 'tenant-messaging/webhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CapturedRequest, refusedUrl, startServer, type TestServer } from '../../helpers/server.js';
import { stubQuotingFetch, token } from '../../helpers/url-secrets.js';

const SECRET = `whsec_${Buffer.from(new Uint8Array(32).fill(5)).toString('base64')}`;
const servers: TestServer[] = [];
/** Every request any test server received: nothing may arrive for a refused relay. */
const arrived: CapturedRequest[] = [];

async function serve(handler: (req: CapturedRequest, res: ServerResponse) => void): Promise<string> {
  const server = await startServer((req, res) => {
    arrived.push(req);
    handler(req, res);
  });
  servers.push(server);
  return server.url;
}

let urls: Record<'refused' | 'stall' | 'reset' | 'failing' | 'gone' | 'redirect' | 'healthy', string>;

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
    healthy: await serve((_req, res) => void res.writeHead(204).end()),
  };
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
afterEach(() => {
  vi.unstubAllGlobals();
});

/** A URL's query and fragment carrying the tokens, each encoded as a URL carries it. */
const withSecrets = (base: string, t: { query: string; bare: string; fragment: string }) =>
  `${base}/hooks?token=${encodeURIComponent(t.query)}&${encodeURIComponent(t.bare)}#${encodeURIComponent(t.fragment)}`;

/** Every form a token may take in a text: as is, percent-encoded, and as a form encodes it. */
const formsOf = (secret: string) => [
  secret,
  encodeURIComponent(secret),
  new URLSearchParams({ s: secret }).toString().slice(2),
];

const update = (id: string): FleetUpdate => ({ id, status: 'sent', eventId: '1-0' });

describe('relayWebhooks and the secrets of an endpoint URL', () => {
  it('refuses credentials in a URL before reading an update or sending anything, never quoting them', async () => {
    const credentials = fc.record({
      user: fc.option(token('usr'), { nil: undefined }),
      password: fc.option(token('pwd'), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(
        credentials.filter(({ user, password }) => user !== undefined || password !== undefined),
        fc.nat(2),
        async ({ user, password }, position) => {
          const userinfo = `${encodeURIComponent(user ?? '')}${password === undefined ? '' : `:${encodeURIComponent(password)}`}@`;
          const url = urls.healthy.replace('://', `://${userinfo}`);
          const endpoints = [
            { url: urls.healthy, secret: SECRET },
            { url: urls.failing, secret: SECRET },
          ];
          endpoints.splice(position, 0, { url: `${url}/hooks?token=abc`, secret: SECRET });
          let read = false;
          const updates = (async function* () {
            read = true;
            yield update('order-1');
          })();
          const before = arrived.length;
          // A short retryFor: a relay that took the URL would end soon, not hold the test.
          const error = await relayWebhooks(updates, { endpoints, retryFor: 1 }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(ValidationError);
          const { issues, message } = error as ValidationError;
          expect(issues).toEqual([
            { path: `endpoints[${position}].url`, message: expect.stringMatching(/credentials/) },
          ]);
          expect(message).toMatch(/secret/);
          for (const secret of [user, password].filter((s) => s !== undefined)) {
            for (const form of formsOf(secret)) expect(message).not.toContain(form);
          }
          expect(message).not.toContain(userinfo);
          expect(read).toBe(false);
          expect(arrived.length).toBe(before);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps every token of a query and a fragment out of the reports and errors, whatever the endpoint does and whatever fetch says', async () => {
    stubQuotingFetch();
    const tokens = fc.record({ query: token('qry'), bare: token('bar'), fragment: token('frg') });
    const kinds = Object.keys(urls) as (keyof typeof urls)[];
    const every: WebhookAttempt[] = [];
    await fc.assert(
      fc.asyncProperty(tokens, async (t) => {
        const endpoints = kinds.map((kind) => ({ url: withSecrets(urls[kind], t), secret: SECRET }));
        const reports: WebhookAttempt[] = [];
        const summary = await relayWebhooks(
          (async function* () {
            yield update('order-1');
          })(),
          { endpoints, timeout: 500, retryFor: 1, concurrency: 2, onAttempt: (a) => reports.push(a) },
        );
        every.push(...reports);
        // Every endpoint was tried, and each report shows its URL as origin and path.
        expect(new Set(reports.map((r) => r.url))).toEqual(new Set(kinds.map((kind) => `${urls[kind]}/hooks`)));
        const shown = JSON.stringify(reports);
        for (const secret of Object.values(t)) {
          for (const form of formsOf(secret))
            expect(shown.includes(form), `${JSON.stringify(form)} reported`).toBe(false);
        }
        // Only the summary's disabled list gives the URL as configured: the caller's own, to match.
        expect(summary.disabled).toEqual(reports.some((r) => r.status === 410) ? [withSecrets(urls.gone, t)] : []);
      }),
      { numRuns: 10 },
    );
    // Each kind of ending was met (over all the runs: a loaded machine may time out one attempt).
    const failures = every.flatMap((r) => (r.failure === undefined ? [] : [r.failure]));
    expect(failures.some((f) => f.includes('ECONNREFUSED') && f.includes(' (decoded '))).toBe(true);
    expect(failures).toContain('no answer within 500 ms');
    expect(every.map((r) => r.status)).toEqual(expect.arrayContaining([204, 302, 410, 500]));
  }, 60_000);
});
