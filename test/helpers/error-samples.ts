/**
 * One error of every code, made as a user meets it: the API's answers through a client whose
 * fetch answers as a server would, the network's failures as fetch throws them, the rest by the
 * public constructors the SDK itself calls. Typed by `ErrorCode`: a new code fails to compile
 * here until it has a sample, and so every test that walks the samples covers it.
 */
import {
  APITimeoutError,
  DeliveryTimeoutError,
  type ErrorCode,
  MessagingClient,
  MessagingError,
  MissingPeerError,
} from 'tenant-messaging';
import { DatastoreError, type DatastoreFault } from 'tenant-messaging/bullmq';
import { type WebhookRefusal, WebhookVerificationError } from 'tenant-messaging/webhooks';

/** The samples' client's base URL: a tenant URL that lacks its /t/, as a wrong one is. */
export const SAMPLE_BASE_URL = 'https://messaging.example.com/acme';

type Answer = Response | (() => never);

/** What `call` throws with a client whose every request is answered `answer`, without retries. */
async function thrown(answer: Answer, call: (client: MessagingClient) => Promise<unknown>): Promise<MessagingError> {
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    await new Response(init?.body ?? null).arrayBuffer();
    return typeof answer === 'function' ? answer() : answer.clone();
  };
  const client = new MessagingClient({ baseUrl: SAMPLE_BASE_URL, apiKey: 'tm_sample_key', fetch, maxRetries: 0 });
  try {
    await call(client);
  } catch (error) {
    if (error instanceof MessagingError) return error;
    throw error;
  }
  throw new Error('the call did not fail');
}

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    headers: { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json', ...headers },
  });
/** fetch failing as undici's does, with the socket's code on its cause. */
const failing = (code: string | undefined) => () => {
  throw new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code ?? 'failed'}`), { code }) });
};
const TEXT = { sender_phone: '+15550001001', to_phone: '+15551234567', type: 'text', content: 'Hi' } as const;
const me = (client: MessagingClient) => client.me();
const made = (error: unknown) => error as MessagingError;

/**
 * Every code's sample, made anew.
 *
 * @example
 * ```ts
 * for (const [code, error] of Object.entries(await errorOfEveryCode())) expect(error.code).toBe(code)
 * ```
 */
export async function errorOfEveryCode(): Promise<Record<ErrorCode, MessagingError>> {
  const webhook = (reason: WebhookRefusal) =>
    new WebhookVerificationError(reason, `The webhook was refused (${reason}).`);
  const datastore = (reason: DatastoreFault) =>
    new DatastoreError(reason, `The datastore failed (${reason}).`, { ids: ['order-1', 'order-2'] });
  return {
    'validation.options': made(
      (() => {
        try {
          new MessagingClient({ baseUrl: 'http://example.com', apiKey: 'k' });
        } catch (error) {
          return error;
        }
      })(),
    ),
    'validation.params': await thrown(answer(200, {}), (client) => client.messages.get(0)),
    'validation.rejected': await thrown(
      answer(422, {
        message: 'The given data was invalid.',
        errors: { to_phone: ['The to phone field is required.'] },
      }),
      (client) => client.messages.send(TEXT),
    ),
    'auth.invalid_key': await thrown(answer(401, { message: 'Unauthenticated.' }), me),
    'scope.missing': await thrown(
      answer(403, { message: 'The API key does not include the required scope.' }),
      (client) => client.usage(),
    ),
    'not_found.route': await thrown(answer(404, { message: '' }), me),
    'not_found.message_log': await thrown(
      answer(404, { message: 'No query results for model [App\\Models\\MessageLog] 42' }),
      (client) => client.messages.get(42),
    ),
    'not_found.resource': await thrown(answer(404, { message: '' }), (client) =>
      client.request({ method: 'GET', path: '/reports/7' }),
    ),
    'rate_limit.exceeded': await thrown(answer(429, { message: 'Too Many Attempts.' }, { 'retry-after': '59' }), me),
    'server.error': await thrown(answer(502, '<html><title>502 Bad Gateway</title></html>'), me),
    'http.redirect': await thrown(answer(302, '', { location: 'https://login.example.com/' }), me),
    'http.status': await thrown(answer(405, { message: 'The DELETE method is not supported for this route.' }), me),
    'response.invalid': await thrown(answer(200, { data: { id: 'forty-two' } }), (client) => client.messages.get(42)),
    'network.refused': await thrown(failing('ECONNREFUSED'), me),
    'network.dns': await thrown(failing('ENOTFOUND'), me),
    'network.unreachable': await thrown(failing('EHOSTUNREACH'), me),
    'network.tls': await thrown(failing('CERT_HAS_EXPIRED'), me),
    'network.reset': await thrown(failing('ECONNRESET'), me),
    'network.failed': await thrown(failing(undefined), me),
    'network.timeout': new APITimeoutError(500, { attempts: 3, elapsedMs: 2_815 }),
    'outcome.unknown': await thrown(answer(502, ''), (client) => client.request({ method: 'POST', path: '/messages' })),
    'send.outcome_unknown': await thrown(answer(502, ''), (client) => client.messages.send(TEXT)),
    'send.stopped': new MessagingError('Not sent: the batch stopped while this send waited for its lane.', {
      code: 'send.stopped',
    }),
    'delivery.timeout': new DeliveryTimeoutError(42, 60_000, 'delivered', { delivery_status: 'sent' }),
    'peer.missing': new MissingPeerError(
      'sandboxHandlers() needs msw, an optional peer dependency that is not installed: run `npm install --save-dev msw`.',
      'msw',
      'npm install --save-dev msw',
    ),
    'webhook.missing_header': webhook('missing-header'),
    'webhook.malformed_header': webhook('malformed-header'),
    'webhook.stale_timestamp': webhook('stale-timestamp'),
    'webhook.future_timestamp': webhook('future-timestamp'),
    'webhook.bad_signature': webhook('bad-signature'),
    'webhook.bad_body': webhook('bad-body'),
    'datastore.not_durable': datastore('not-durable'),
    'datastore.evicts': datastore('evicts'),
    'datastore.forgot': datastore('forgot'),
    'datastore.full': datastore('full'),
    'datastore.rolled_back': datastore('rolled-back'),
    'datastore.not_replicated': datastore('not-replicated'),
    'datastore.schema_missing': new MessagingError('The queue’s tables are missing.', {
      code: 'datastore.schema_missing',
    }),
    'sdk.unclassified': new MessagingError('Something the SDK has no code for.'),
  };
}
