/**
 * One conformance suite for every datastore adapter of the store (src/bullmq/store/), as BullMQ
 * runs one for its backends: the same promises of the fleet gate's places and of the update log,
 * on a real Redis and a real PostgreSQL. Then what only PostgreSQL has: `migrate()`, after which
 * an application role without any DDL privilege runs the fleet.
 */
import * as bullmq from 'bullmq';
import pg from 'pg';
import { MessagingError } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker, MIGRATION_SQL, migrate } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendOf } from '../../../../src/bullmq/store/backend.js';
import { storeOf } from '../../../../src/bullmq/store/store.js';
import type { Store } from '../../../../src/bullmq/store/types.js';
import { uniqueName } from '../../../helpers/redis.js';
import {
  BACKENDS,
  type BackendFixture,
  startBackendFixture,
  startPostgresWithBullmq,
  text,
  until,
} from '../fixture.js';

const fixtures = new Map<string, BackendFixture>();
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  for (const [name, available] of BACKENDS) if (available) fixtures.set(name, await startBackendFixture(name));
}, 60_000);
afterAll(async () => {
  for (const item of opened.reverse()) await item.close().catch(() => undefined);
  for (const f of fixtures.values()) await f.close();
});

/** A store on a new queue of the fixture's datastore, as the queue and the worker make one. */
function storeFor(f: BackendFixture): Store {
  const backend = backendOf(bullmq, f.connection);
  const connection = backend.kind === 'postgres' ? backend.connection : f.connection;
  const queue = new bullmq.Queue(
    uniqueName('store'),
    { connection } as never,
    backend.factory as never,
  ) as unknown as bullmq.Queue;
  queue.on('error', () => undefined);
  opened.push(queue);
  return storeOf(bullmq, backend, queue);
}

for (const [backend, available] of BACKENDS) {
  describe.runIf(available)(`the store on ${backend}`, () => {
    it('places: admits up to the limit, then says how long until one frees; a settled place ends after its window', async () => {
      const places = storeFor(fixtures.get(backend) as BackendFixture).places();
      for (let i = 0; i < 3; i++) expect(await places.admit(`m${i}`, 3, 60_000)).toBe(0);
      const wait = await places.admit('m3', 3, 60_000);
      expect(wait).toBeGreaterThan(50_000);
      expect(wait).toBeLessThanOrEqual(60_000);
      // Settled with a window of a second: refused for no longer than it, then admitted. Both sides are
      // read on this machine's one clock (the datastore's TIME, this process's Date.now()), so a
      // stalled machine cannot break them: a refusal is asked of an admission less than the window
      // after the settle, and the admission is found by polling, never before the window ended.
      const settling = Date.now();
      await places.settle('m0', 1_000);
      const left = await places.admit('m3', 3, 60_000);
      if (Date.now() - settling < 1_000) expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(1_000);
      if (left > 0) {
        await until(
          async () => (await places.admit('m3', 3, 60_000)) === 0,
          30_000,
          () => 'the settled place to end',
        );
      }
      expect(Date.now() - settling).toBeGreaterThanOrEqual(1_000);
    });

    it("places: concurrent admissions never exceed the limit (one atomic step on the datastore's clock)", async () => {
      const places = storeFor(fixtures.get(backend) as BackendFixture).places();
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => places.admit(`c${i}`, 7, 60_000)));
      expect(answers.filter((wait) => wait === 0)).toHaveLength(7);
    });

    it('places: each lane is apart from the gate and the other lanes; a place settled with 0 frees at once; sweep drops ended places', async () => {
      const f = fixtures.get(backend) as BackendFixture;
      const store = storeFor(f);
      const gate = store.places();
      const lane = store.places('r:+15557654321');
      const other = store.places('s:phone:+15550001001');
      expect(await gate.admit('g', 1, 60_000)).toBe(0);
      expect(await lane.admit('a', 1, 60_000)).toBe(0);
      expect(await other.admit('a', 1, 60_000)).toBe(0);
      expect(await lane.admit('b', 1, 60_000)).toBeGreaterThan(0);
      await lane.settle('a', 0); // never sent: its place is free for the next at once
      expect(await lane.admit('b', 1, 60_000)).toBe(0);
      await other.settle('a', 1);
      // The time passing is the behaviour: the 1 ms window ends, then sweep drops the place.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await other.sweep();
      if (backend === 'postgres') {
        const { rows } = (await f.run(
          "SELECT count(*)::int AS n FROM bullmq.tenant_messaging_fleet_place WHERE key LIKE '%:lane:s:%'",
        )) as {
          rows: { n: number }[];
        };
        expect(rows[0]?.n).toBe(0);
      }
      expect(await other.admit('c', 1, 60_000)).toBe(0);
    });

    it("places: reserve gives a lane's worth of sends each turn, turns a window apart, on the datastore clock", async () => {
      const lane = storeFor(fixtures.get(backend) as BackendFixture).places('s:phone:+15550001009');
      const turns = [];
      const started = performance.now();
      for (let i = 0; i < 7; i++) {
        const turn = await lane.reserve(1_000, 500, 3);
        turns.push({ turn, since: performance.now() - started });
      }
      // Three at 1000 ms, three at 1500, one at 2000, each less the time since the first call
      // (measured here, so that a stalled machine moves the bound rather than failing it).
      const expected = [1_000, 1_000, 1_000, 1_500, 1_500, 1_500, 2_000];
      for (const [i, { turn, since }] of turns.entries()) {
        expect(turn).toBeGreaterThan((expected[i] as number) - since - 20);
        expect(turn).toBeLessThanOrEqual(expected[i] as number);
      }
      // A lane whose turn has passed starts again from the estimate.
      const other = storeFor(fixtures.get(backend) as BackendFixture).places('r:+15557654323');
      expect(await other.reserve(5, 5, 1)).toBeLessThanOrEqual(5);
      // The time passing is the behaviour: the 5 ms turn is over.
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(await other.reserve(300, 5, 1)).toBeGreaterThan(250);
    });

    it('places: renew keeps an open place for a new lease, and refuses one that ended or never was', async () => {
      const lane = storeFor(fixtures.get(backend) as BackendFixture).places('r:+15557654324');
      // A first lease no stall of a busy machine outlasts before the renewal.
      expect(await lane.admit('a', 1, 5_000)).toBe(0);
      expect(await lane.renew('a', 60_000)).toBe(true);
      // Held for the new lease, not the first: the next waits longer than the first lease.
      expect(await lane.admit('b', 1, 60_000)).toBeGreaterThan(50_000);
      await lane.settle('a', 0);
      expect(await lane.renew('a', 60_000)).toBe(false);
      expect(await lane.renew('never-admitted', 60_000)).toBe(false);
      expect(await lane.admit('b', 1, 60_000)).toBe(0);
    });

    it('updates: read in the order published, from now, from the start or after an id; close() ends a reader', async () => {
      const store = storeFor(fixtures.get(backend) as BackendFixture);
      const log = store.updates();
      opened.push(log);
      await log.publish({ id: 'before', status: 'sent' });
      const fromNow = await log.position('now');
      const fromStart = await log.position('start');
      for (let i = 0; i < 5; i++) await log.publish({ id: `u${i}`, status: 'sent' });
      const read = async (position: string, count: number) => {
        const seen: { id: string; eventId: string; at?: string | undefined }[] = [];
        for await (const update of log.read(position, AbortSignal.timeout(10_000))) {
          seen.push(update);
          if (seen.length === count) break;
        }
        return seen;
      };
      const now = await read(fromNow, 5);
      expect(now.map((u) => u.id)).toEqual(['u0', 'u1', 'u2', 'u3', 'u4']);
      expect(now.every((u) => typeof u.at === 'string')).toBe(true);
      expect((await read(fromStart, 6)).map((u) => u.id)).toEqual(['before', 'u0', 'u1', 'u2', 'u3', 'u4']);
      expect((await read(now[1]?.eventId as string, 3)).map((u) => u.id)).toEqual(['u2', 'u3', 'u4']);

      // A reader waiting for the next update: it has read one published after it began, so it is in
      // its read, not starting it, when close() comes.
      const seen: string[] = [];
      const position = await log.position('now');
      const waiting = (async () => {
        for await (const update of log.read(position, undefined)) seen.push(update.id);
        return seen;
      })();
      await log.publish({ id: 'wake', status: 'sent' });
      await until(
        () => seen.includes('wake'),
        30_000,
        () => 'the reader to read the update published after it began',
      );
      await log.close();
      // A hang detector, not a measure: close() must end the reader by itself.
      expect(
        await Promise.race([waiting, new Promise((resolve) => setTimeout(() => resolve('still reading'), 30_000))]),
      ).toEqual(['wake']);
    });

    it('guard: a datastore fit to keep sends is accepted', async () => {
      const guard = storeFor(fixtures.get(backend) as BackendFixture).guard({});
      await guard.ready();
      await guard.check();
    });
  });
}

describe.runIf(BACKENDS.find(([name]) => name === 'postgres')?.[1] === true)('migrate() on PostgreSQL', () => {
  it('creates every table once; then a role without any DDL privilege runs the fleet, and without the migration it is told what to run', async () => {
    const db = await startPostgresWithBullmq();
    opened.push({ close: () => db.stop() });
    const admin = new pg.Pool({ connectionString: db.url, max: 2 });
    admin.on('error', () => undefined);
    opened.push({ close: () => admin.end() });
    const appUrl = db.url.replace('postgres@', 'app:app@');
    await admin.query(`CREATE ROLE app LOGIN PASSWORD 'app'`);
    await admin.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await admin.query('GRANT USAGE ON SCHEMA bullmq TO app');
    const grant = async () => {
      await admin.query('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA bullmq TO app');
      await admin.query('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA bullmq TO app');
      await admin.query('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA bullmq TO app');
    };
    await grant();

    // Not migrated: the application's role may not create the SDK's tables, and is told what to run.
    const early = new MessagingQueue({ connection: { postgres: { connectionString: appUrl, max: 2 } }, name: 'sms' });
    opened.push(early);
    const refused = await (async () => {
      for await (const _ of early.updates()) return 'read';
      return 'ended';
    })().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MessagingError);
    expect((refused as Error).message).toMatch(
      /run migrate\(connection\) once with a role that may[\s\S]*MIGRATION_SQL/,
    );

    // The deployment step, twice (idempotent), then the grants on what it made.
    await migrate({ postgres: db.url });
    await migrate({ postgres: { connectionString: db.url } });
    await grant();
    expect(MIGRATION_SQL).toContain('CREATE TABLE IF NOT EXISTS tenant_messaging_update');

    const f = fixtures.get('postgres') as BackendFixture;
    const connection = { postgres: { connectionString: appUrl, max: 2 } };
    const queue = new MessagingQueue({ connection, name: 'sms' });
    const worker = new MessagingWorker({
      connection,
      name: 'sms',
      client: f.client,
      rateLimit: { requestsPerSecond: 20 },
    });
    opened.push(worker, queue);
    const reading = new AbortController();
    const updates = queue.updates({ signal: reading.signal });
    const id = await queue.send({ ...text(2), content: 'through the app role' }, { id: 'app-1' });
    // Bounded: a reader that missed the send's update would wait forever (it did once, beside two
    // CPU hogs, before a send waited for the reader's start to be known).
    const giveUp = setTimeout(() => reading.abort(), 30_000);
    const seen: string[] = [];
    for await (const update of updates) {
      seen.push(`${update.id} ${update.status}`);
      if (update.id === id && update.status === 'sent') break;
    }
    clearTimeout(giveUp);
    expect(
      seen.at(-1),
      `the updates seen; stored: ${f.sandbox.messages('acme').filter((log) => log.content === 'through the app role').length}`,
    ).toBe(`${id} sent`);
    expect(f.sandbox.messages('acme').filter((log) => log.content === 'through the app role')).toHaveLength(1);
    // The role could not have run any DDL: it may create nothing, in the schema or the database.
    const { rows } = await admin.query(
      `SELECT has_schema_privilege('app', 'bullmq', 'CREATE') AS create_in_bullmq,
              has_database_privilege('app', current_database(), 'CREATE') AS create_schema`,
    );
    expect(rows[0]).toEqual({ create_in_bullmq: false, create_schema: false });
  }, 90_000);
});
