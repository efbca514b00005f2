/**
 * Every numeric option of every fleet constructor (MessagingWorker, MessagingQueue, WebhookRelay,
 * outbox.relay) refused outside its domain with a ValidationError on its path, thrown by the
 * constructor itself, before any connection is attempted: the connection points at a listening
 * socket that counts who connects (Redis options not lazy, and PostgreSQL), and only the marker
 * opened after every refusal arrives. A nested options object given as a number or null
 * (`trackDelivery: 60_000`, `retention: 86_400`) is refused too, not read as `{}` (all defaults).
 * The accepted side of each domain: options-domain.test.ts; the bounds on the datastores:
 * numeric-options-stores.test.ts.
 */
import { connect, createServer, type Server } from 'node:net';
import fc from 'fast-check';
import pg from 'pg';
import { MessagingClient, ValidationError } from 'tenant-messaging';
import { MessagingOutbox, MessagingQueue, MessagingWorker, WebhookRelay } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRelayOptions } from '../../../src/bullmq/webhooks/options.js';
import { SECRET } from './webhooks/relay-fixture.js';

/** PostgreSQL's `integer` and a timer's longest ms: the largest whole number every option may hold. */
const MAX_WHOLE = 2_147_483_647;

let server: Server;
let port = 0;
let arrived = 0;
beforeAll(async () => {
  server = createServer((socket) => {
    arrived++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey: 'k' });
const connections = () => ({
  redis: { host: '127.0.0.1', port, maxRetriesPerRequest: 0 },
  postgres: { postgres: `postgres://u:p@127.0.0.1:${port}/db` },
});
const endpoints = [{ url: 'https://example.com/hooks', secret: SECRET }];

type Make = (connection: object, at: object) => unknown;
// The outbox's queue is lazy on a closed port (it is never used); the relay's pool is the counted socket.
const outboxQueue = new MessagingQueue({
  connection: { host: '127.0.0.1', port: 1, lazyConnect: true, maxRetriesPerRequest: 0 },
  name: 'sms',
});
const outbox = new MessagingOutbox({ queue: outboxQueue });
afterAll(() => outboxQueue.close());
/** Each constructor, with the options at hand and `at` (the option under test) spread in. */
const MAKE: Record<'MessagingWorker' | 'MessagingQueue' | 'WebhookRelay' | 'outbox.relay', Make> = {
  MessagingWorker: (connection, at) => new MessagingWorker({ connection, name: 'sms', client, ...at } as never),
  MessagingQueue: (connection, at) => new MessagingQueue({ connection, name: 'sms', ...at } as never),
  WebhookRelay: (connection, at) => new WebhookRelay({ connection, name: 'sms', endpoints, ...at } as never),
  'outbox.relay': (connection, at) => {
    const url = (connection as { postgres?: string }).postgres ?? `postgres://u:p@127.0.0.1:${port}/db`;
    return outbox.relay({ pool: new pg.Pool({ connectionString: url }), ...at } as never);
  },
};

const nest = (path: string, value: unknown): object =>
  path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as object;
/** The options around a lane's value: a lane needs the fleet's rate beside it. */
const around = (path: string, value: unknown) =>
  path.startsWith('rateLimit.per')
    ? { rateLimit: { requestsPerSecond: 10, ...(nest(path, value) as { rateLimit: object }).rateLimit } }
    : nest(path, value);

const whole = (min: number, max = MAX_WHOLE) =>
  fc.oneof(
    fc.double({ noInteger: true, noDefaultInfinity: true, noNaN: true }),
    fc.integer({ max: min - 1 }),
    fc.constantFrom(1.5, 2.5, min - 1, max + 1, max * 2, Number.NaN, Infinity, -Infinity),
    fc.constantFrom('10', null, true, {}, [], 10n),
  );
const notNumbers = fc.constantFrom<unknown>('10', null, true, {}, [], 10n, Number.NaN, Infinity, -Infinity);

/** Each constructor's numeric options and the values each refuses (a sample of the whole class). */
const CASES: readonly (readonly [keyof typeof MAKE, string, fc.Arbitrary<unknown>])[] = [
  ...(
    [
      ['concurrency', 1],
      ['lockDuration', 1],
      ['stalledInterval', 1],
      ['clockSkewMs', 0],
      ['rateLimit.requestsPerSecond', 1],
      ['rateLimit.perRecipient.minInterval', 1],
      ['trackDelivery.timeout', 1],
      ['trackDelivery.interval', 1],
      ['retention.sentSeconds', 0],
      ['retention.failedSeconds', 0],
      ['retention.unknownSeconds', 0],
    ] as const
  ).map(([path, min]) => ['MessagingWorker', path, whole(min)] as const),
  [
    'MessagingWorker',
    'rateLimit.perSender.requestsPerSecond',
    fc.oneof(fc.double({ max: 0, noNaN: true }), fc.constantFrom(MAX_WHOLE + 1, 1e-10), notNumbers),
  ],
  ...(
    [
      ['attempts', 1],
      ['waitForReplicas.replicas', 1],
      ['waitForReplicas.timeout', 1],
      ['retention.sentSeconds', 0],
      ['retention.failedSeconds', 0],
      ['retention.unknownSeconds', 0],
    ] as const
  ).map(([path, min]) => ['MessagingQueue', path, whole(min)] as const),
  ['WebhookRelay', 'lockDuration', whole(1)],
  ['WebhookRelay', 'stalledInterval', whole(1)],
  ['WebhookRelay', 'concurrency', whole(1, Number.MAX_SAFE_INTEGER)],
  // Timer and clock arithmetic only (never Lua or SQL): a fraction of a ms is fine there.
  ['WebhookRelay', 'timeout', fc.oneof(fc.double({ max: 0, noNaN: true }), fc.constant(MAX_WHOLE + 1), notNumbers)],
  ['WebhookRelay', 'retryFor', fc.oneof(fc.double({ max: 0, noNaN: true }), notNumbers)],
  ['outbox.relay', 'batch', whole(1)],
  ['outbox.relay', 'interval', whole(1)],
];

/** The paths of the ValidationError `make` throws synchronously; a failure if it throws none. */
function refusedPaths(make: () => unknown): string[] {
  let thrown: unknown;
  try {
    make();
  } catch (error) {
    thrown = error;
  }
  if (!(thrown instanceof ValidationError)) throw new Error(`not refused with a ValidationError: ${String(thrown)}`);
  return thrown.issues.map((issue) => issue.path);
}

/** Resolves once a marker connection opened now has arrived: whatever was attempted before it has too. */
async function afterPendingConnects(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  const before = arrived;
  const marker = connect(port, '127.0.0.1');
  marker.on('error', () => undefined);
  await new Promise((resolve) => marker.once('close', resolve));
  return arrived - before - 1;
}

describe('fleet options outside their domain, refused before any connection', () => {
  it.each(CASES)('%s %s: a ValidationError on its path, nothing connects', async (name, path, values) => {
    const make = MAKE[name];
    for (const connection of Object.values(connections())) {
      const before = arrived;
      fc.assert(
        fc.property(values, (value) => {
          expect(refusedPaths(() => make(connection, around(path, value)))).toEqual([path]);
        }),
        { numRuns: 40 },
      );
      expect(await afterPendingConnects()).toBe(0);
      expect(arrived - before).toBe(1); // the marker alone
    }
  });

  it.each([
    ['MessagingWorker', 'trackDelivery'],
    ['MessagingWorker', 'rateLimit'],
    ['MessagingWorker', 'rateLimit.perSender'],
    ['MessagingWorker', 'rateLimit.perRecipient'],
    ['MessagingWorker', 'retention'],
    ['MessagingQueue', 'retention'],
    ['MessagingQueue', 'waitForReplicas'],
  ] as const)('%s %s given as something other than an object: refused on its path', async (name, path) => {
    const make = MAKE[name];
    const { redis } = connections();
    fc.assert(
      fc.property(fc.constantFrom<unknown>(null, 60_000, 1.5, 'x', true, [], 10n), (value) => {
        expect(refusedPaths(() => make(redis, around(path, value)))).toEqual([path]);
      }),
    );
    expect(await afterPendingConnects()).toBe(0);
  });

  it('a refusal names the option, the value and what to write', () => {
    const { redis } = connections();
    let error: unknown;
    try {
      MAKE.MessagingWorker(redis, { trackDelivery: 60_000, rateLimit: { requestsPerSecond: 1.5 } });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'rateLimit.requestsPerSecond',
        message: 'must be a whole number of requests a second from 1 to 2147483647, got 1.5 (write 1 or 2)',
      },
      { path: 'trackDelivery', message: "must be an object such as { until: 'delivered' }, got 60000" },
    ]);
  });

  it("WebhookRelay's numeric options: their whole domain accepted", () => {
    const base = { connection: connections().redis, name: 'sms', endpoints };
    const ms = fc.integer({ min: 1, max: MAX_WHOLE });
    fc.assert(
      fc.property(
        ms,
        ms,
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.double({ min: Number.MIN_VALUE, max: MAX_WHOLE, noNaN: true }),
        fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true }),
        (lockDuration, stalledInterval, concurrency, timeout, retryFor) => {
          const options = { ...base, lockDuration, stalledInterval, concurrency, timeout, retryFor };
          expect(() => checkRelayOptions(options)).not.toThrow();
        },
      ),
    );
  });
});
