/**
 * A PostgreSQL server that ends each connection in the same packet as the one saying it is ready:
 * what a failover or `pg_terminate_backend` does to connections made while the fleet reconnects.
 * node-postgres throws a connection's error when nothing listens yet, and the client is handed to
 * its holder (BullMQ) one turn before the holder listens: that ended the host process. Each of the
 * SDK's objects on PostgreSQL must instead fail its calls, and close.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { MessagingClient } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker, WebhookRelay } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { text, until } from '../fixture.js';

/** One protocol message: a type byte, its length, its body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
const cstring = (value: string) => Buffer.from(`${value}\0`, 'utf8');
const ready = Buffer.concat([
  message('R', Buffer.from([0, 0, 0, 0])), // AuthenticationOk
  message('K', Buffer.alloc(8)), // BackendKeyData
  message('Z', Buffer.from('I')), // ReadyForQuery
]);
const terminated = message(
  'E',
  Buffer.concat([
    Buffer.from('S'),
    cstring('FATAL'),
    Buffer.from('V'),
    cstring('FATAL'),
    Buffer.from('C'),
    cstring('57P01'),
    Buffer.from('M'),
    cstring('terminating connection due to administrator command'),
    Buffer.from([0]),
  ]),
);

let server: Server;
let url: string;
let connections = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let startup = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      startup = Buffer.concat([startup, chunk]);
      if (startup.length < 4 || startup.length < startup.readInt32BE(0)) return;
      connections++;
      // Ready, then ended: one write, so the client reads both in one turn.
      socket.end(Buffer.concat([ready, terminated]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  url = `postgresql://postgres@127.0.0.1:${address.port}/postgres`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const client = new MessagingClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' });

describe('every PostgreSQL connection ended as it becomes ready', () => {
  it('queue.send rejects, and nothing ends the process', async () => {
    const queue = new MessagingQueue({
      connection: { postgres: { connectionString: url } },
      name: uniqueName('handover'),
    });
    const before = connections;
    await expect(queue.send(text(1))).rejects.toThrow();
    expect(connections).toBeGreaterThan(before);
    await queue.close();
  });

  it('a worker keeps trying, at a bounded pace (no storm of connections), logs what happened, and closes', async () => {
    const errors: string[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (line: string) => errors.push(line) };
    const worker = new MessagingWorker({
      connection: { postgres: { connectionString: url } },
      name: uniqueName('handover'),
      client,
      logger,
      allowUnsafeDatastore: true,
    });
    await expect(worker.ready()).rejects.toThrow(/not queryable|terminat/);
    const before = connections;
    // It keeps trying.
    await until(
      () => connections > before,
      30_000,
      () => 'a connection after the failed start',
    );
    // The window is the behaviour (a pace: connections per time; a busy machine only lowers the
    // count). Without the pace, BullMQ's worker opened thousands of connections a second here.
    const counting = connections;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(connections - counting).toBeLessThan(40);
    // Logged once per kind of error (a count follows when its 10 s window ends), not once per retry.
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.length).toBeLessThan(6);
    // It closes (a paced retry waits 2 s at most): the test's timeout is the bound.
    await worker.close();
  });

  it('a webhook relay on that database closes', async () => {
    const relay = new WebhookRelay({
      connection: { postgres: { connectionString: url } },
      name: uniqueName('handover'),
      endpoints: [{ url: 'http://127.0.0.1:9/hook', secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=' }],
    });
    const before = connections;
    await until(
      () => connections > before,
      30_000,
      () => 'the relay connecting',
    );
    await relay.close();
  });
});
