/**
 * The bounds of the fleet's numeric options (options-domain.test.ts) as the datastores take them:
 * a fleet built with every smallest accepted value, and one with every largest, each sends on Redis
 * and on PostgreSQL, with no datastore error logged (PostgreSQL refused a limit of 1.5 as
 * `invalid input syntax for type integer`, and the fleet sent nothing, in silence).
 */
import { MessagingQueue, MessagingWorker, type MessagingWorkerOptions } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WHOLE } from '../../src/bullmq/checks.js';
import { uniqueName } from '../helpers/redis.js';
import { BACKENDS, type BackendFixture, collectUpdates, recorder, startBackendFixture, text } from './fixture.js';

const SMALLEST: Partial<MessagingWorkerOptions> = {
  concurrency: 1,
  clockSkewMs: 0,
  rateLimit: { requestsPerSecond: 1, perSender: { requestsPerSecond: 1 }, perRecipient: { minInterval: 1 } },
  trackDelivery: { timeout: 1, interval: 1 },
  retention: { sentSeconds: 0, failedSeconds: 0, unknownSeconds: 0 },
};
const LARGEST: Partial<MessagingWorkerOptions> = {
  concurrency: MAX_WHOLE,
  lockDuration: MAX_WHOLE,
  stalledInterval: MAX_WHOLE,
  clockSkewMs: MAX_WHOLE,
  rateLimit: {
    requestsPerSecond: MAX_WHOLE,
    perSender: { requestsPerSecond: MAX_WHOLE },
    perRecipient: { minInterval: MAX_WHOLE },
  },
  trackDelivery: { timeout: MAX_WHOLE, interval: MAX_WHOLE },
  retention: { sentSeconds: MAX_WHOLE, failedSeconds: MAX_WHOLE, unknownSeconds: MAX_WHOLE },
};

describe.each(BACKENDS)("the fleet's numeric bounds on %s", (backend, available) => {
  let f: BackendFixture;
  beforeAll(async () => {
    if (available) f = await startBackendFixture(backend);
  }, 60_000);
  afterAll(async () => {
    await f?.close();
  });

  it.runIf(available).each([
    ['smallest', SMALLEST, 1],
    ['largest', LARGEST, MAX_WHOLE],
  ] as const)('every %s accepted value: the send goes, no datastore error', async (_, extra, attempts) => {
    const name = uniqueName('bounds');
    const queue = new MessagingQueue({ connection: f.connection, name, attempts });
    const updates = queue.updates();
    const { lines, logger } = recorder();
    const worker = new MessagingWorker({ connection: f.connection, name, client: f.client, logger, ...extra });
    try {
      await worker.ready();
      await queue.send(text(1), { id: 'bound' });
      const [update] = await collectUpdates(updates, (s) => s.some((u) => u.status === 'sent'));
      expect(update).toMatchObject({ id: 'bound', status: 'sent' });
      expect(lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
