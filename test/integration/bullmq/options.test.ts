/**
 * Every options object of tenant-messaging/bullmq refuses keys that are not options, as the
 * client does, before any connection is made: a misspelt option would otherwise be ignored. The
 * checks run before the datastore is touched, so no Redis or PostgreSQL is needed here.
 */
import fc from 'fast-check';
import { MessagingClient, ValidationError } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { describe, expect, it } from 'vitest';
import { checkQueueOptions } from '../../../src/bullmq/checks.js';

// Nothing listens here: a check that let an option through would try to connect, and fail differently.
const connection = { host: '127.0.0.1', port: 1, lazyConnect: true, maxRetriesPerRequest: 0 };
const client = new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey: 'k' });

const WORKER_OPTIONS = [
  'connection',
  'name',
  'client',
  'concurrency',
  'rateLimit',
  'trackDelivery',
  'lockDuration',
  'stalledInterval',
  'clockSkewMs',
  'retention',
  'logger',
];

/** The ValidationError `make` throws, or a failure saying it threw none. */
function refusal(make: () => unknown): ValidationError {
  try {
    make();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('options of tenant-messaging/bullmq', () => {
  it('a misspelt option is refused, naming it and the option it most likely meant', () => {
    const worker = refusal(() => new MessagingWorker({ connection, name: 'sms', client, concurency: 8 } as never));
    expect(worker.message).toMatch(/Invalid MessagingWorker options/);
    expect(worker.issues).toEqual([
      { path: 'concurency', message: expect.stringMatching(/is not an option; did you mean concurrency\?/) },
    ]);
    const nested = refusal(
      () =>
        new MessagingWorker({
          connection,
          name: 'sms',
          client,
          rateLimit: { requestPerSecond: 5 },
          trackDelivery: { untill: 'read' },
          retention: { sentSecond: 1 },
        } as never),
    );
    expect(nested.issues.map((issue) => issue.path)).toEqual([
      'rateLimit.requestPerSecond',
      'trackDelivery.untill',
      'retention.sentSecond',
    ]);
    expect(nested.message).toMatch(
      /did you mean requestsPerSecond\?[\s\S]*did you mean until\?[\s\S]*did you mean sentSeconds\?/,
    );
    expect(refusal(() => new MessagingQueue({ connection, name: 'sms', Attempts: 3 } as never)).message).toMatch(
      /Attempts: is not an option; did you mean attempts\?/,
    );
  });

  it('the worker lanes: a rate that is not a number > 0 or an interval that is not a whole number > 0, or missing, is refused', () => {
    const issuesOf = (rateLimit: unknown) =>
      refusal(() => new MessagingWorker({ connection, name: 'sms', client, rateLimit } as never)).issues;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ max: 0 }),
          fc.double({ noInteger: true, max: 0 }),
          fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, '10', null, true),
        ),
        (value) => {
          expect(issuesOf({ requestsPerSecond: 50, perSender: { requestsPerSecond: value } })).toEqual([
            {
              path: 'rateLimit.perSender.requestsPerSecond',
              message: expect.stringMatching(/must be a number of requests a second from /),
            },
          ]);
          expect(issuesOf({ requestsPerSecond: 50, perRecipient: { minInterval: value } })).toEqual([
            {
              path: 'rateLimit.perRecipient.minInterval',
              message: expect.stringMatching(/must be a whole number of ms from 1/),
            },
          ]);
        },
      ),
      { numRuns: 50 },
    );
    expect(issuesOf({ requestsPerSecond: 50, perRecipient: { minInterval: 1.5 } })[0]?.path).toBe(
      'rateLimit.perRecipient.minInterval',
    );
    expect(issuesOf({ requestsPerSecond: 50, perSender: {} })).toEqual([
      { path: 'rateLimit.perSender.requestsPerSecond', message: 'is required, e.g. 10' },
    ]);
  });

  it('any key that is not an option is refused, whatever it is; every real option is accepted', () => {
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1, maxLength: 20 })
          .filter((key) => !WORKER_OPTIONS.includes(key) && key !== '__proto__'),
        (key) => {
          const error = refusal(() => new MessagingWorker({ connection, name: 'sms', client, [key]: 1 } as never));
          expect(error.issues.map((issue) => issue.path)).toEqual([key]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('waitForReplicas: a misspelt key, a count or a timeout that is not a whole number > 0 is refused before any I/O; a Cluster is not', () => {
    const issuesOf = (waitForReplicas: unknown, on: object = connection) =>
      refusal(() => new MessagingQueue({ connection: on, name: 'sms', prefix: '{sms}', waitForReplicas } as never))
        .issues;
    expect(issuesOf({ replica: 1 })).toEqual([
      { path: 'waitForReplicas.replica', message: expect.stringMatching(/did you mean replicas\?/) },
    ]);
    expect(issuesOf(1)).toEqual([
      { path: 'waitForReplicas', message: expect.stringMatching(/must be an object such as \{ replicas: 1/) },
    ]);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ max: 0 }),
          fc.double({ noInteger: true }),
          fc.constantFrom(Number.POSITIVE_INFINITY, Number.NaN, '1', null, true),
        ),
        fc.constantFrom('replicas', 'timeout'),
        (value, key) => {
          const [issue, ...more] = issuesOf({ [key]: value });
          expect(more).toEqual([]);
          expect(issue?.path).toBe(`waitForReplicas.${key}`);
          expect(issue?.message).toMatch(/must be a whole number of (replicas|ms) from 1 to 2147483647/);
        },
      ),
      { numRuns: 100 },
    );
    // ioredis's Cluster says so with isCluster; its options are checked as any other's (its
    // replicas are waited for on the master of the queue's slot: topologies/cluster-failover.test.ts).
    const cluster = { isCluster: true, options: {} };
    expect(
      checkQueueOptions({
        connection: cluster,
        name: 'sms',
        prefix: '{sms}',
        waitForReplicas: { replicas: 1 },
      } as never),
    ).toEqual({ replicas: 1, timeout: 1_000 });
    expect(issuesOf({ replicas: 0 }, cluster).map((issue) => issue.path)).toEqual(['waitForReplicas.replicas']);
    // Every valid form is accepted (the queue is made; it connects only at its first call).
    for (const valid of [{}, { replicas: 2 }, { timeout: 250 }, { replicas: 1, timeout: 1_000 }]) {
      void new MessagingQueue({ connection, name: 'sms', waitForReplicas: valid }).close();
    }
  });

  it('the calls of a queue refuse unknown options before any I/O', async () => {
    const queue = new MessagingQueue({ connection, name: 'sms-options' });
    try {
      const params = { sender_phone: '+15550001001', to_phone: '+15550001002', type: 'text', content: 'Hi' } as const;
      await expect(queue.send(params, { jobId: 'a' } as never)).rejects.toThrow(/jobId: is not an option/);
      expect(() => queue.updates({ form: '0' } as never)).toThrow(/form: is not an option; did you mean from\?/);
    } finally {
      await queue.close();
    }
  });
});
