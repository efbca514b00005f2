/**
 * Every number a fleet option carries reaches Lua, a SQL `integer` or `bigint`, or a timer: each is
 * a whole number within what they all hold, or it is refused with a ValidationError naming it,
 * before any connection. A property over each option's whole domain: whole numbers from its
 * minimum to MAX_WHOLE pass; fractions (1.5 requests a second, which the fleet gate let 2 into a
 * second on Redis and PostgreSQL refused as "1.5"), numbers out of range, NaN, infinities and
 * values that are not numbers are refused, on that path alone. No datastore is needed here:
 * numeric-options-stores.test.ts runs the bounds on Redis and PostgreSQL.
 */
import fc from 'fast-check';
import { MessagingClient, ValidationError } from 'tenant-messaging';
import { MessagingQueue, type MessagingQueueOptions, MessagingWorker } from 'tenant-messaging/bullmq';
import { describe, expect, it } from 'vitest';
import { checkQueueOptions, checkRetention, MAX_WHOLE } from '../../../src/bullmq/checks.js';
import { checkRelayOptions as checkOutboxRelayOptions } from '../../../src/bullmq/outbox/outbox.js';
import { checkWorkerOptions } from '../../../src/bullmq/worker/options.js';

// Nothing listens here: an option let through would try to connect, and fail otherwise.
const connection = { host: '127.0.0.1', port: 1, lazyConnect: true, maxRetriesPerRequest: 0 };
const client = new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey: 'k' });
const base = { connection, name: 'sms', client };

/** An option's path, its smallest accepted value, and the options object holding `value` there. */
const WORKER: readonly [string, number, (value: unknown) => object][] = [
  ['concurrency', 1, (v) => ({ concurrency: v })],
  ['lockDuration', 1, (v) => ({ lockDuration: v })],
  ['stalledInterval', 1, (v) => ({ stalledInterval: v })],
  ['clockSkewMs', 0, (v) => ({ clockSkewMs: v })],
  ['rateLimit.requestsPerSecond', 1, (v) => ({ rateLimit: { requestsPerSecond: v } })],
  [
    'rateLimit.perRecipient.minInterval',
    1,
    (v) => ({ rateLimit: { requestsPerSecond: 10, perRecipient: { minInterval: v } } }),
  ],
  ['trackDelivery.timeout', 1, (v) => ({ trackDelivery: { timeout: v } })],
  ['trackDelivery.interval', 1, (v) => ({ trackDelivery: { interval: v } })],
  ['retention.sentSeconds', 0, (v) => ({ retention: { sentSeconds: v } })],
  ['retention.failedSeconds', 0, (v) => ({ retention: { failedSeconds: v } })],
  ['retention.unknownSeconds', 0, (v) => ({ retention: { unknownSeconds: v } })],
];
const QUEUE: readonly [string, number, (value: unknown) => object][] = [
  ['attempts', 1, (v) => ({ attempts: v })],
  ['waitForReplicas.replicas', 1, (v) => ({ waitForReplicas: { replicas: v } })],
  ['waitForReplicas.timeout', 1, (v) => ({ waitForReplicas: { timeout: v } })],
  ['retention.sentSeconds', 0, (v) => ({ retention: { sentSeconds: v } })],
  ['retention.failedSeconds', 0, (v) => ({ retention: { failedSeconds: v } })],
  ['retention.unknownSeconds', 0, (v) => ({ retention: { unknownSeconds: v } })],
];

const accepted = (min: number) => fc.oneof(fc.integer({ min, max: MAX_WHOLE }), fc.constantFrom(min, MAX_WHOLE));
const refused = (min: number) =>
  fc.oneof(
    fc.double({ noInteger: true, noDefaultInfinity: true, noNaN: true }),
    fc.constantFrom(1.5, 2.5, min - 1, MAX_WHOLE + 1, Number.MAX_SAFE_INTEGER, Number.NaN, Infinity, -Infinity),
    fc.integer({ max: min - 1 }),
    fc.constantFrom('10', null, true, {}, [], 10n),
  );

function issuesOf(make: () => unknown): ValidationError['issues'] {
  try {
    make();
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
  return [];
}

describe("the fleet's numeric options", () => {
  it.each(WORKER)(
    'MessagingWorker %s: a whole number from %d to MAX_WHOLE, or refused on its path',
    (path, min, at) => {
      fc.assert(
        fc.property(accepted(min), (value) => {
          expect(issuesOf(() => checkWorkerOptions({ ...base, ...at(value) } as never))).toEqual([]);
        }),
      );
      fc.assert(
        fc.property(refused(min), (value) => {
          const issues = issuesOf(() => new MessagingWorker({ ...base, ...at(value) } as never));
          expect(issues.map((issue) => issue.path)).toEqual([path]);
          expect(issues[0]?.message).toMatch(/whole number of .+ from \d+ to 2147483647/);
        }),
      );
    },
  );

  it.each(QUEUE)('MessagingQueue %s: a whole number from %d to MAX_WHOLE, or refused on its path', (path, min, at) => {
    fc.assert(
      fc.property(accepted(min), (value) => {
        const options = { connection, name: 'sms', ...at(value) } as never;
        expect(
          issuesOf(() => [checkQueueOptions(options), checkRetention((options as MessagingQueueOptions).retention)]),
        ).toEqual([]);
      }),
    );
    fc.assert(
      fc.property(refused(min), (value) => {
        const issues = issuesOf(() => new MessagingQueue({ connection, name: 'sms', ...at(value) } as never));
        expect(issues.map((issue) => issue.path)).toEqual([path]);
      }),
    );
  });

  it('MessagingWorker rateLimit.perSender.requestsPerSecond: any rate > 0 a lane can hold (below 1: one every 1/n s; floored above 1), or refused', () => {
    const at = (v: unknown) => ({ ...base, rateLimit: { requestsPerSecond: 10, perSender: { requestsPerSecond: v } } });
    fc.assert(
      fc.property(fc.double({ min: 1000 / MAX_WHOLE, max: MAX_WHOLE, noNaN: true }), (value) => {
        expect(issuesOf(() => checkWorkerOptions(at(value) as never))).toEqual([]);
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ max: 0, noNaN: true }),
          fc.double({ min: MAX_WHOLE + 1, noNaN: true }),
          fc.constantFrom(1e-10, Number.NaN, Infinity, '10', null, true),
        ),
        (value) => {
          const issues = issuesOf(() => new MessagingWorker(at(value) as never));
          expect(issues.map((issue) => issue.path)).toEqual(['rateLimit.perSender.requestsPerSecond']);
        },
      ),
    );
  });

  it.each(['batch', 'interval'])('outbox.relay %s: every whole number from 1 to MAX_WHOLE accepted', (path) => {
    const pool = { connect: () => Promise.reject(new Error('never used')) };
    fc.assert(
      fc.property(accepted(1), (value) => {
        expect(issuesOf(() => checkOutboxRelayOptions({ pool, [path]: value } as never))).toEqual([]);
      }),
    );
  });

  it('a fraction is answered with the whole numbers beside it', () => {
    const [issue] = issuesOf(() => new MessagingWorker({ ...base, rateLimit: { requestsPerSecond: 1.5 } }));
    expect(issue).toEqual({
      path: 'rateLimit.requestsPerSecond',
      message: 'must be a whole number of requests a second from 1 to 2147483647, got 1.5 (write 1 or 2)',
    });
  });
});
