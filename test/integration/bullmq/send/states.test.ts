/**
 * The crash-safety state table of a queued send (src/bullmq/send/states.ts), row by row: first as data,
 * then each transition driven for real (a worker, the sandbox and its faults), on both of
 * BullMQ's datastores: Redis and PostgreSQL.
 */

import type { Queue } from 'bullmq';
import fc from 'fast-check';
import { MessagingClient } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it, it as itRuns } from 'vitest';
// The table itself is internal: read from the source, as test/core reads the pure policies.
import { next, type Phase, type SendEvent, stepOf, TRANSITIONS } from '../../../../src/bullmq/send/states.js';
import { uniqueName } from '../../../helpers/redis.js';
import {
  BACKENDS,
  type BackendFixture,
  collectUpdates,
  fastWorker,
  finishedJob,
  startBackendFixture,
  text,
} from '../fixture.js';

describe('the state table as data', () => {
  it('a POST starts only from queued; every other phase reconciles, polls or is finished', () => {
    expect(stepOf('queued')).toBe('send');
    expect(stepOf('in-flight')).toBe('reconcile');
    expect(stepOf('tracking')).toBe('poll');
    for (const phase of ['sent', 'failed', 'unknown'] as const) expect(stepOf(phase)).toBe('finished');
  });

  it('no event leads from in-flight back to a POST without a definite "not sent" (429, never connected)', () => {
    const phases = Object.keys(TRANSITIONS) as Phase[];
    const events = [...new Set(phases.flatMap((p) => Object.keys(TRANSITIONS[p])))] as SendEvent[];
    fc.assert(
      fc.property(fc.constantFrom(...phases), fc.constantFrom(...events), (phase, event) => {
        const to = TRANSITIONS[phase][event];
        if (to === undefined) expect(() => next(phase, event)).toThrow(/no transition/);
        else expect(next(phase, event)).toBe(to);
        if (phase === 'in-flight' && to === 'queued') expect(['rate-limited', 'never-sent']).toContain(event);
        if (to === 'queued' && phase !== 'in-flight') expect(event).toBe('resend');
      }),
      { seed: 13, numRuns: 200 },
    );
  });
});

describe.each(BACKENDS)('each transition, for real, on %s', (backend, available) => {
  let f: BackendFixture;
  beforeAll(async () => {
    if (available) f = await startBackendFixture(backend);
  }, 30_000);
  afterAll(async () => {
    await f?.close();
  });
  afterEach(() => {
    f?.sandbox.faults.clear();
    f?.sandbox.setRateLimit(null);
  });
  const it = available ? itRuns : itRuns.skip;

  /** A queue, its updates from now, and a worker; all closed by the returned `close`. */
  async function setUp(options: Partial<Parameters<typeof fastWorker>[2]> = {}, queueAttempts?: number) {
    const name = uniqueName();
    const queue = new MessagingQueue({
      connection: f.connection,
      name,
      ...(queueAttempts ? { attempts: queueAttempts } : {}),
    });
    const raw: Queue = f.raw(name);
    const updates = queue.updates();
    let worker: MessagingWorker | undefined;
    return {
      queue,
      raw,
      updates,
      start: () => {
        worker = new MessagingWorker(fastWorker(f, name, options));
        return worker;
      },
      close: async () => {
        await worker?.close();
        await raw.close();
        await queue.close();
      },
    };
  }

  const stored = (content: string) => f.sandbox.messages('acme').filter((log) => log.content === content).length;

  it('in-flight --outcome-unknown--> reconcile --found--> sent: a lost answer is found, stored once', async () => {
    const t = await setUp();
    try {
      f.sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage' });
      await t.queue.send(text(101), { id: 'lost' });
      t.start();
      const [update] = await collectUpdates(t.updates, (s) => s.length >= 1);
      expect(update).toMatchObject({ id: 'lost', status: 'sent', log: { content: 'Queued message 101' } });
      expect(stored('Queued message 101')).toBe(1);
      expect((await t.raw.getJob('lost'))?.data.phase).toBe('sent');
    } finally {
      await t.close();
    }
  });

  it('in-flight --outcome-unknown--> reconcile --not-found--> unknown; resend --> queued --> sent once', async () => {
    const t = await setUp();
    try {
      // A 503 before the request is processed: the SDK cannot know, the logs show nothing.
      f.sandbox.faults.add({ kind: 'status', status: 503, route: 'sendMessage', times: 1 });
      await t.queue.send(text(102), { id: 'unsure' });
      t.start();
      const [first] = await collectUpdates(t.updates, (s) => s.length >= 1);
      expect(first).toMatchObject({ id: 'unsure', status: 'unknown', error: { name: 'SendOutcomeUnknownError' } });
      expect(first?.error?.message).toMatch(/queue\.resend\(id\)/);
      await finishedJob(t.raw, 'unsure');
      expect(await t.queue.counts()).toMatchObject({ unknown: 1, failed: 0, sent: 0 });
      expect(stored('Queued message 102')).toBe(0);
      const again = t.queue.updates();
      await t.queue.resend('unsure');
      const [second] = await collectUpdates(again, (s) => s.length >= 1);
      expect(second).toMatchObject({ id: 'unsure', status: 'sent' });
      expect(stored('Queued message 102')).toBe(1);
      const job = await finishedJob(t.raw, 'unsure');
      expect(job?.data.resends).toBe(1);
      expect((await t.raw.getJobLogs('unsure')).logs.join('\n')).toMatch(/resend #1 at .* after 'unknown'/);
      await expect(t.queue.resend('unsure')).rejects.toThrow(/is 'sent', not 'unknown'/);
      await expect(t.queue.resend('nope')).rejects.toThrow(/no send 'nope'/);
    } finally {
      await t.close();
    }
  });

  it('a re-run that finds its in-flight mark reconciles instead of sending: found --> sent, not found --> unknown', async () => {
    const t = await setUp();
    try {
      // What a worker killed after marking leaves behind: one send that reached the service, one that did not.
      const startedAt = Date.now() - 1_000;
      await f.client.messages.send(text(103));
      for (const [id, i] of [
        ['reached', 103],
        ['never-reached', 104],
      ] as const) {
        await t.queue.send(text(i), { id });
        const job = await t.raw.getJob(id);
        await job?.updateData({ ...job.data, phase: 'in-flight', startedAt });
      }
      t.start();
      const seen = await collectUpdates(t.updates, (s) => s.length >= 2);
      const by = Object.fromEntries(seen.map((u) => [u.id, u.status]));
      expect(by).toEqual({ reached: 'sent', 'never-reached': 'unknown' });
      expect(stored('Queued message 103')).toBe(1);
      expect(stored('Queued message 104')).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('in-flight --rate-limited--> queued: a 429 pauses the queue, is not a failure, and the send goes later', async () => {
    // One a second against 4 sends let go at once: the first 4 POSTs wait in the client until all
    // 4 are ready, so a 429 is certain however slowly the machine starts the jobs (all 4 through
    // would need their requests spread over 4 of the service's whole seconds).
    const SENDS = 4;
    const waiting: (() => void)[] = [];
    let posts = 0;
    const together: typeof fetch = async (input, init) => {
      if ((init?.method ?? 'GET') === 'POST' && ++posts <= SENDS) {
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          if (waiting.length === SENDS) for (const go of waiting.splice(0)) go();
        });
      }
      return fetch(input, init);
    };
    // Not adaptive: the client would otherwise pace itself from X-RateLimit-Remaining and avoid the 429s.
    const { baseUrl, keys } = f.sandbox.tenants['acme'] as (typeof f.sandbox.tenants)[string];
    const client = new MessagingClient({ baseUrl, apiKey: keys.full, rateLimit: { adaptive: false }, fetch: together });
    const t = await setUp({ concurrency: SENDS, client });
    try {
      f.sandbox.setRateLimit({ perSecond: 1 });
      const ids = await t.queue.sendMany(Array.from({ length: SENDS }, (_, i) => text(200 + i)));
      const before = f.sandbox.counters.requests['POST /messages'] ?? 0;
      // The pause is the queue's, in its datastore (every worker of the fleet sees it): watch for it.
      let paused = 0;
      const watch = setInterval(async () => {
        paused = Math.max(paused, await t.raw.getRateLimitTtl().catch(() => 0));
      }, 25);
      t.start();
      const seen = await collectUpdates(t.updates, (s) => s.filter((u) => u.status === 'sent').length >= SENDS).finally(
        () => clearInterval(watch),
      );
      expect(paused).toBeGreaterThan(0);
      // Each 429 is reported as the reason its send waits, with the pause's end; every send then goes.
      const limited = seen.filter((u) => u.status === 'rate-limited');
      expect(limited.length).toBeGreaterThan(0);
      for (const u of limited) expect(u).toMatchObject({ until: expect.any(String), error: { status: 429 } });
      expect(seen.filter((u) => u.status !== 'rate-limited').map((u) => u.status)).toEqual(Array(SENDS).fill('sent'));
      // Some requests were refused with 429 (more requests than sends), yet nothing failed or went twice.
      expect((f.sandbox.counters.requests['POST /messages'] ?? 0) - before).toBeGreaterThan(SENDS);
      for (let i = 0; i < SENDS; i++) expect(stored(`Queued message ${200 + i}`)).toBe(1);
      // One finished attempt each (BullMQ counts the completion), no failure recorded, and at least
      // one job was started again after its 429.
      const jobs = await Promise.all(ids.map((id) => finishedJob(t.raw, id)));
      for (const job of jobs)
        expect([job?.attemptsMade, job?.failedReason, job?.stacktrace]).toEqual([1, undefined, []]);
      expect(jobs.some((job) => (job?.attemptsStarted ?? 0) > 1)).toBe(true);
      expect(await t.queue.counts()).toMatchObject({ sent: SENDS, failed: 0, unknown: 0 });
    } finally {
      await t.close();
    }
  });

  it('in-flight --never-sent--> queued: retried with backoff, and failed once out of attempts', async () => {
    const name = uniqueName();
    const queue = new MessagingQueue({ connection: f.connection, name, attempts: 2 });
    const updates = queue.updates();
    // A port nobody listens on: the connection is never made.
    const client = new MessagingClient({
      baseUrl: 'http://127.0.0.1:9/t/acme',
      apiKey: 'tm_test_acme_full',
      timeout: 1_000,
    });
    const worker = new MessagingWorker({ ...fastWorker(f, name), client });
    const raw = f.raw(name);
    try {
      await queue.send(text(300), { id: 'offline' });
      const [update] = await collectUpdates(updates, (s) => s.length >= 1);
      expect(update).toMatchObject({ id: 'offline', status: 'failed', error: { name: 'APIConnectionError' } });
      expect((await finishedJob(raw, 'offline')).attemptsMade).toBe(2);
    } finally {
      await worker.close();
      await raw.close();
      await queue.close();
    }
  });

  it('sent --track--> tracking --changed--> ... --reached--> sent: each change through updates()', async () => {
    const t = await setUp({ trackDelivery: { until: 'delivered', interval: 50, timeout: 10_000 } });
    try {
      await t.queue.send(text(400, SANDBOX_PHONES.neverReads), { id: 'tracked' });
      t.start();
      const seen = await collectUpdates(t.updates, (s) => s.some((u) => u.status === 'delivered'));
      expect(seen.map((u) => [u.id, u.status])).toEqual([
        ['tracked', 'sent'],
        ['tracked', 'delivered'],
      ]);
      expect(seen[1]?.log?.delivery_status).toBe('delivered');
      const job = await finishedJob(t.raw, 'tracked');
      expect(job?.returnvalue).toMatchObject({ status: 'sent', delivery: 'delivered' });
      expect(job?.data.track?.polls).toBeGreaterThanOrEqual(0);
    } finally {
      await t.close();
    }
  });

  it('tracking --expired--> delivery-timeout; tracking --gone (404)--> ends quietly', async () => {
    const t = await setUp({ trackDelivery: { interval: 50, timeout: 600 } });
    try {
      await t.queue.send(text(401, SANDBOX_PHONES.neverDelivered), { id: 'slow' });
      await t.queue.send(text(402), { id: 'gone' });
      const job = await t.raw.getJob('gone');
      await job?.updateData({
        ...job.data,
        phase: 'tracking',
        logId: 987_654,
        track: { deadline: Date.now() + 60_000, unchanged: 0, polls: 0 },
      });
      t.start();
      const seen = await collectUpdates(t.updates, (s) => s.some((u) => u.status === 'delivery-timeout'));
      expect(seen.filter((u) => u.id === 'slow').map((u) => u.status)).toEqual(['sent', 'delivery-timeout']);
      expect(seen.filter((u) => u.id === 'gone')).toEqual([]);
      expect((await finishedJob(t.raw, 'gone')).returnvalue).toMatchObject({ delivery: 'not-found' });
      expect(stored('Queued message 402')).toBe(0);
    } finally {
      await t.close();
    }
  });
});
