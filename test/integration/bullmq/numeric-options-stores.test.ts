/**
 * The bounds of the fleet's numeric options (options-domain.test.ts) as the datastores take them:
 * a fleet built with every smallest accepted value, and one with every largest, each sends on Redis
 * and on PostgreSQL, with no datastore error logged (PostgreSQL refused a limit of 1.5 as
 * `invalid input syntax for type integer`, and the fleet sent nothing, in silence). The smallest
 * per-sender rate is a lane window of MAX_WHOLE ms, its lease twice that: past PostgreSQL's
 * `integer`. The outbox relay's `batch` is a SQL `LIMIT`, its `interval` a timer.
 */
import pg from 'pg';
import { MessagingOutbox, MessagingQueue, MessagingWorker, type MessagingWorkerOptions } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WHOLE } from '../../../src/bullmq/checks.js';
import { uniqueName } from '../../helpers/redis.js';
import { BACKENDS, type BackendFixture, collectUpdates, recorder, startBackendFixture, text } from './fixture.js';

const SMALLEST: Partial<MessagingWorkerOptions> = {
  concurrency: 1,
  clockSkewMs: 0,
  rateLimit: {
    requestsPerSecond: 1,
    perSender: { requestsPerSecond: 1000 / MAX_WHOLE },
    perRecipient: { minInterval: 1 },
  },
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

  it.runIf(available && backend === 'postgres').each([
    ['smallest', 1],
    ['largest', MAX_WHOLE],
  ] as const)('the outbox relay with the %s batch and interval: the row is handed off and sent', async (_, bound) => {
    const name = uniqueName('bounds-outbox');
    const pool = new pg.Pool({
      connectionString: (f.connection as { postgres: { connectionString: string } }).postgres.connectionString,
    });
    pool.on('error', () => undefined);
    const queue = new MessagingQueue({ connection: f.connection, name });
    const updates = queue.updates();
    const outbox = new MessagingOutbox({ queue, table: 'bounds_outbox' });
    const { lines, logger } = recorder();
    const worker = new MessagingWorker({ connection: f.connection, name, client: f.client, logger });
    try {
      await outbox.migrate(pool);
      const relay = outbox.relay({ pool, batch: bound, interval: bound, logger });
      try {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await outbox.add(client, text(1), { id: 'bound' });
          await client.query('COMMIT');
        } finally {
          client.release();
        }
        const seen = await collectUpdates(updates, (s) => s.some((u) => u.status === 'sent'));
        expect(seen.find((u) => u.status === 'sent')).toMatchObject({ id: 'bound' });
        expect(lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
      } finally {
        await relay.close();
      }
    } finally {
      await worker.close();
      await queue.close();
      await pool.end();
    }
  });
});
