/**
 * What the WebhookRelay tests share (relay.test.ts, relay-options.test.ts): the endpoints' secrets,
 * receivers on loopback that verify every request with the reference `standardwebhooks` package,
 * and a queue with a worker that tracks until read and relays of it.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { MessagingQueue, MessagingWorker, WebhookRelay, type WebhookRelayOptions } from 'tenant-messaging/bullmq';
import type { WebhookEvent } from 'tenant-messaging/webhooks';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { type CapturedRequest, startServer, type TestServer } from '../../../helpers/server.js';
import { expectDocumentedEvent } from '../../../helpers/webhook-schema.js';
import { type BackendFixture, fastWorker } from '../fixture.js';

/** The relay's key of an endpoint (its deliveries' `endpoint`): the first 16 hex digits of its URL's SHA-256. */
export const endpointKey = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 16);

export const secretOf = (fill: number) => `whsec_${Buffer.from(new Uint8Array(32).fill(fill)).toString('base64')}`;
export const SECRET = secretOf(7);
export const OTHER = secretOf(8);
export const SECRETS = [SECRET, OTHER].map((s) => s.slice('whsec_'.length));

/** The statuses that end a tracked send. */
const FINAL = new Set(['read', 'unknown', 'failed', 'delivery-timeout']);

/** A receiver that verifies every request with the reference package, and what it accepted. */
export interface Receiver {
  readonly server: TestServer;
  /** The requests it answered 2xx: webhook-id and verified event. */
  readonly accepted: { id: string; event: WebhookEvent }[];
  /** `<business id>/<status>` of every event it accepted. */
  changes(): Set<string>;
}

/** What the relay tests share on one backend: receivers, fleets with relays, a poll, a logger. */
export function relayHarness(fixture: () => BackendFixture) {
  const servers: TestServer[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  const { lines: logged, logger } = recordingLogger();

  async function serve(
    handler: (req: CapturedRequest, res: ServerResponse, index: number) => void,
  ): Promise<TestServer> {
    const server = await startServer(handler);
    servers.push(server);
    return server;
  }

  /**
   * A queue with a worker that tracks until read, and relays of it. `published` holds every change
   * the queue published (`<id>/<status>`), read as a user of `updates()` would: what the endpoints
   * must receive (under load, a send may end `unknown` instead of `read`).
   */
  async function fleet(name: string, relay: Omit<WebhookRelayOptions, 'connection' | 'name'>) {
    const f = fixture();
    const queue = new MessagingQueue({ connection: f.connection, name });
    const worker = new MessagingWorker(
      fastWorker(f, name, {
        client: f.client.withOptions({ timeout: 10_000 }),
        concurrency: 4,
        trackDelivery: { until: 'read', interval: 40 },
      }),
    );
    const published = new Set<string>();
    const reading = new AbortController();
    const collecting = (async () => {
      for await (const update of queue.updates({ signal: reading.signal }))
        published.add(`${update.id}/${update.status}`);
    })();
    const relays: WebhookRelay[] = [];
    const startRelay = async (extra: Partial<WebhookRelayOptions> = {}) => {
      const started = new WebhookRelay({
        connection: f.connection,
        name,
        lockDuration: 2_000,
        stalledInterval: 1_000,
        logger,
        ...relay,
        ...extra,
      });
      relays.push(started);
      await started.ready();
      return started;
    };
    /** Whether every id's send ended, and every change of them reached `at`. */
    const relayed = (ids: readonly string[], at: Receiver) =>
      ids.every((id) => [...FINAL].some((status) => published.has(`${id}/${status}`))) &&
      [...published].filter((c) => ids.includes(c.slice(0, c.lastIndexOf('/')))).every((c) => at.changes().has(c));
    closers.push(async () => {
      reading.abort();
      await collecting;
      for (const r of relays) await r.close().catch(() => undefined);
      await worker.close();
      await queue.close();
    });
    return { queue, worker, startRelay, published, relayed };
  }

  /** Polls `check` every 25 ms until it holds; throws naming `what` after `timeoutMs` (a hang detector). */
  const until = async (
    check: () => boolean | Promise<boolean>,
    timeoutMs: number,
    what: string | (() => string | Promise<string>),
  ) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${typeof what === 'string' ? what : await what()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  async function receiver(
    secret: string,
    answer: (id: string, index: number) => number = () => 204,
  ): Promise<Receiver> {
    const verifier = new Webhook(secret);
    const accepted: { id: string; event: WebhookEvent }[] = [];
    const server = await serve((req, res, index) => {
      const id = req.headers['webhook-id'] as string;
      // Throws (and the test fails on the 500 it causes) unless the signature verifies.
      const event = verifier.verify(req.body.toString(), req.headers as Record<string, string>) as WebhookEvent;
      expectDocumentedEvent(req.body.toString());
      const status = answer(id, index);
      if (status >= 200 && status < 300) accepted.push({ id, event });
      res.writeHead(status).end();
    });
    return {
      server,
      accepted,
      changes: () => new Set(accepted.map(({ event }) => `${event.data.id}/${event.data.status}`)),
    };
  }

  return {
    fleet,
    receiver,
    serve,
    until,
    servers,
    logged,
    logger,
    /** Closes the fleets and relays made so far, the last first. */
    closeFleets: async () => {
      for (const close of closers.splice(0).reverse()) await close();
    },
    closeServers: () => Promise.all(servers.map((s) => s.close())),
  };
}
