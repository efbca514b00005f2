/**
 * Scheduled sends, cancel and quiet hours (issue 29) on Redis and PostgreSQL, against the sandbox:
 * what arrives at the service and when, what `updates()` says, and what the datastore holds.
 */
import { ValidationError } from 'tenant-messaging';
import { MessagingQueue, type MessagingUpdate, MessagingWorker } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../helpers/redis.js';
import {
  BACKENDS,
  type BackendFixture,
  collectUpdates,
  fastWorker,
  finishedJob,
  startBackendFixture,
  text,
  until,
} from './fixture.js';

const SENDS = { route: 'POST /messages' } as const;

/** `'HH:MM'` of `at` in UTC, shifted by `minutes`. */
function utcClock(at: number, minutes: number): string {
  const shifted = new Date(at + minutes * 60_000);
  return `${String(shifted.getUTCHours()).padStart(2, '0')}:${String(shifted.getUTCMinutes()).padStart(2, '0')}`;
}

/** The next instant (after `at`) at which the UTC clock shows the whole minute `clock`: computed apart from the SDK. */
function nextUtc(at: number, clock: string): number {
  const [hours, minutes] = clock.split(':').map(Number) as [number, number];
  const day = new Date(at);
  let when = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hours, minutes);
  if (when <= at) when += 86_400_000;
  return when;
}

/** Quiet hours in UTC that began an hour ago and end in an hour (never across a minute boundary race). */
const quietNow = (now: number) => ({ start: utcClock(now, -60), end: utcClock(now, 60), timeZone: 'UTC' });

describe.each(BACKENDS)('scheduled sends, cancel and quiet hours on %s', (backend, available) => {
  let f: BackendFixture;
  beforeAll(async () => {
    if (available) f = await startBackendFixture(backend);
  });
  afterAll(async () => {
    await f?.close();
  });

  it.runIf(available)(
    'a scheduled send is due at its sendAt in the datastore, arrives at or after it, reported scheduled then sent',
    async () => {
      const name = uniqueName();
      const raw = f.raw(name);
      const queue = new MessagingQueue({ connection: f.connection, name });
      const worker = new MessagingWorker(fastWorker(f, name));
      try {
        await worker.ready();
        const updates = queue.updates();
        const before = f.sandbox.requestLog.acceptedAt(SENDS).length;
        const sendAt = new Date(Date.now() + 600);
        const enqueuing = Date.now();
        const id = await queue.send(text(1), { id: 'reminder-1', sendAt });
        const enqueued = Date.now() - enqueuing;
        expect(id).toBe('reminder-1');
        // Due at sendAt, as stored (BullMQ's timestamp + delay): exact to within the time the
        // enqueue took (its clock read twice). When a worker wakes for a due job is BullMQ's, a
        // latency, not asserted here: a loaded machine makes it later.
        const job = await raw.getJob('reminder-1');
        const due = (job?.timestamp ?? 0) + (job?.delay ?? 0);
        expect(Math.abs(due - sendAt.getTime())).toBeLessThanOrEqual(enqueued + 5);
        const seen = await collectUpdates(updates, (s) => s.some((u) => u.status === 'sent'));
        expect(seen.map((u) => u.status)).toEqual(['scheduled', 'sent']);
        expect(seen[0]?.until).toBe(sendAt.toISOString());
        const arrivals = f.sandbox.requestLog.acceptedAt(SENDS).slice(before);
        expect(arrivals).toHaveLength(1);
        expect(arrivals[0]).toBeGreaterThanOrEqual(sendAt.getTime());
      } finally {
        await worker.close();
        await queue.close();
        await raw.close();
      }
    },
  );

  it.runIf(available)(
    'a cancelled send never arrives; cancel is false once sent, for an unknown id, and twice',
    async () => {
      const name = uniqueName();
      const raw = f.raw(name);
      const queue = new MessagingQueue({ connection: f.connection, name });
      const worker = new MessagingWorker(fastWorker(f, name));
      try {
        await worker.ready();
        const updates = queue.updates();
        const before = f.sandbox.requestLog.acceptedAt(SENDS).length;
        const sendAt = new Date(Date.now() + 600);
        await queue.send(text(1, '+15557654301'), { id: 'later', sendAt });
        await queue.send(text(2, '+15557654302'), { id: 'now' });
        expect(await queue.cancel('later')).toBe(true);
        expect(await queue.cancel('later')).toBe(false);
        // 'now' was queued before the cancels: a worker may send it before they end, so its 'sent'
        // can come before 'later's 'cancelled'. Both are awaited, in whichever order they come.
        const seen = await collectUpdates(
          updates,
          (s) =>
            s.some((u) => u.id === 'now' && u.status === 'sent') &&
            s.some((u) => u.id === 'later' && u.status === 'cancelled'),
        );
        await finishedJob(raw, 'now');
        expect(await queue.cancel('now')).toBe(false);
        expect(await queue.cancel('never-enqueued')).toBe(false);
        // The time passing is the behaviour: past the cancelled send's time, it never reaches the service.
        await new Promise((resolve) => setTimeout(resolve, sendAt.getTime() + 400 - Date.now()));
        const sent = f.sandbox.messages('acme').filter((log) => log.content?.startsWith('Queued message'));
        expect(f.sandbox.requestLog.acceptedAt(SENDS).slice(before)).toHaveLength(1);
        expect(sent.some((log) => (log.request_payload as { to_phone?: string })?.to_phone === '+15557654301')).toBe(
          false,
        );
        const cancelled = seen.filter((u: MessagingUpdate) => u.id === 'later').map((u) => u.status);
        expect(cancelled).toEqual(['scheduled', 'cancelled']);
        expect(await raw.getJob('later')).toBeUndefined();
      } finally {
        await worker.close();
        await queue.close();
        await raw.close();
      }
    },
  );

  it.runIf(available)('cancel is false for a send a worker has taken, which then goes once', async () => {
    const name = uniqueName();
    const raw = f.raw(name);
    const queue = new MessagingQueue({ connection: f.connection, name });
    const worker = new MessagingWorker(fastWorker(f, name));
    f.sandbox.faults.add({ kind: 'latency', latencyMs: 600, route: 'sendMessage', times: 1 });
    try {
      await worker.ready();
      const before = f.sandbox.requestLog.acceptedAt(SENDS).length;
      await queue.send(text(1), { id: 'taken' });
      // Held 600 ms at the service: the job is active meanwhile (polled every 50 ms).
      await until(
        async () => (await (await raw.getJob('taken'))?.getState()) === 'active',
        30_000,
        () => 'the worker to take the send',
      );
      expect(await queue.cancel('taken')).toBe(false);
      const job = await finishedJob(raw, 'taken');
      expect(job.returnvalue).toMatchObject({ status: 'sent' });
      expect(f.sandbox.requestLog.acceptedAt(SENDS).slice(before)).toHaveLength(1);
    } finally {
      f.sandbox.faults.clear();
      await worker.close();
      await queue.close();
      await raw.close();
    }
  });

  it.runIf(available)(
    'a send due inside quiet hours waits until they end (delayed in the datastore), reported quiet-hours',
    async () => {
      const name = uniqueName();
      const raw = f.raw(name);
      const now = Date.now();
      const hours = quietNow(now);
      const queue = new MessagingQueue({ connection: f.connection, name, quietHours: hours });
      const worker = new MessagingWorker(fastWorker(f, name));
      try {
        await worker.ready();
        const updates = queue.updates();
        await queue.send(text(1), { id: 'night' });
        // null: this message ignores the queue's quiet hours (a one-time code).
        await queue.send(text(2), { id: 'code', quietHours: null });
        const seen = await collectUpdates(updates, (s) => s.some((u) => u.id === 'code' && u.status === 'sent'));
        const night = seen.find((u) => u.id === 'night');
        expect(night?.status).toBe('quiet-hours');
        expect(Date.parse(night?.until as string)).toBe(nextUtc(now, hours.end));
        const job = await raw.getJob('night');
        expect(await job?.getState()).toBe('delayed');
        expect((job?.timestamp ?? 0) + (job?.delay ?? 0)).toBeGreaterThanOrEqual(nextUtc(now, hours.end) - 5);
        expect(await queue.cancel('night')).toBe(true);
      } finally {
        await worker.close();
        await queue.close();
        await raw.close();
      }
    },
  );
});

describe.runIf(BACKENDS[0][1])('quiet hours: the recipient zone, the worker check, and bad options', () => {
  let f: BackendFixture;
  beforeAll(async () => {
    f = await startBackendFixture('redis');
  });
  afterAll(async () => {
    await f?.close();
  });

  it("'recipient' reads the zone of to_phone's country, and refuses a number that does not tell one, before storing", async () => {
    const name = uniqueName();
    const raw = f.raw(name);
    const queue = new MessagingQueue({ connection: f.connection, name });
    try {
      const now = Date.now();
      const london = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/London',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
      const local = (ms: number) => london.format(new Date(ms));
      const hours = { start: local(now - 3_600_000), end: local(now + 3_600_000), timeZone: 'recipient' };
      const updates = queue.updates();
      await queue.send({ ...text(1), to_phone: '+442071234567' }, { id: 'uk', quietHours: hours });
      const [held] = await collectUpdates(updates, (s) => s.length > 0);
      expect(held?.status).toBe('quiet-hours');
      // It ends when London's clock shows the end: within the next 61 minutes (a whole minute).
      const ends = Date.parse(held?.until as string);
      expect(local(ends)).toBe(hours.end);
      expect(ends - now).toBeGreaterThan(3_500_000);
      expect(ends - now).toBeLessThanOrEqual(3_660_000);
      // A fictional +1 555 number tells no country: refused, with the fix, and nothing stored.
      const refused = await queue.send(text(2), { id: 'fictional', quietHours: hours }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).issues.map((i) => i.path)).toContain('quietHours.timeZone');
      expect((refused as ValidationError).message).toMatch(/timeZone: 'America\/New_York'/);
      // Russia's zones span more hours than an 18:00-10:00 window leaves: no moment suits them all.
      const narrow = { start: '18:00', end: '10:00', timeZone: 'recipient' };
      const russia = await queue.send({ ...text(3), to_phone: '+79161234567' }, { quietHours: narrow }).catch((e) => e);
      expect(russia).toBeInstanceOf(ValidationError);
      expect((russia as ValidationError).message).toMatch(/RU/);
      expect(await raw.getJob('fictional')).toBeUndefined();
      expect((await queue.counts()).waiting).toBe(1);
    } finally {
      await queue.close();
      await raw.close();
    }
  });

  it('the worker holds a send that reached its quiet hours while it waited in a backlog, and says so', async () => {
    const name = uniqueName();
    const raw = f.raw(name);
    const queue = new MessagingQueue({ connection: f.connection, name });
    const worker = new MessagingWorker(fastWorker(f, name));
    try {
      const updates = queue.updates();
      // Enqueued outside quiet hours (none then), taken by a worker once they had begun: the job
      // as a producer stored it, with the window it carries, written straight to the datastore.
      const now = Date.now();
      const [sh, sm] = utcClock(now, -60).split(':').map(Number) as [number, number];
      const [eh, em] = utcClock(now, 60).split(':').map(Number) as [number, number];
      const quiet = { startMinute: sh * 60 + sm, endMinute: eh * 60 + em, zones: ['UTC'] };
      const before = f.sandbox.requestLog.acceptedAt(SENDS).length;
      await raw.add('send', { v: 1, params: text(1), phase: 'queued', quiet }, { jobId: 'backlog' });
      await worker.ready();
      const [held] = await collectUpdates(updates, (s) => s.length > 0);
      expect(held).toMatchObject({ id: 'backlog', status: 'quiet-hours' });
      expect(Date.parse(held?.until as string)).toBe(nextUtc(now, utcClock(now, 60)));
      await until(
        async () => (await (await raw.getJob('backlog'))?.getState()) === 'delayed',
        30_000,
        () => 'the held send to be delayed in the datastore',
      );
      expect(await (await raw.getJob('backlog'))?.getState()).toBe('delayed');
      expect(f.sandbox.requestLog.acceptedAt(SENDS).slice(before)).toHaveLength(0);
    } finally {
      await worker.close();
      await queue.close();
      await raw.close();
    }
  });

  it('refuses a bad sendAt or quietHours before storing anything, saying how to fix it', async () => {
    const name = uniqueName();
    const raw = f.raw(name);
    expect(
      () =>
        new MessagingQueue({
          connection: f.connection,
          name,
          quietHours: { start: '9pm', end: '08:00', timeZone: 'UTC' },
        }),
    ).toThrow(/quietHours.start/);
    const queue = new MessagingQueue({ connection: f.connection, name });
    try {
      const cases = [
        [{ sendAt: '2026-12-01T09:00:00Z' }, 'sendAt', /new Date\('2026-12-01T09:00:00Z'\)/],
        [{ sendAt: new Date(Number.NaN) }, 'sendAt', /invalid Date/],
        [{ quietHours: { start: '21:00', end: '21:00', timeZone: 'UTC' } }, 'quietHours.end', /must differ/],
        [{ quietHours: { start: '21:00', end: '08:00', timeZone: 'Mars/Olympus' } }, 'quietHours.timeZone', /zone/],
        [{ sendAfter: new Date() }, 'sendAfter', /not an option/],
      ] as const;
      for (const [options, path, message] of cases) {
        const error = await queue.send(text(1), options as never).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
        expect((error as ValidationError).message).toMatch(message);
      }
      expect((await queue.counts()).waiting).toBe(0);
    } finally {
      await queue.close();
      await raw.close();
    }
  });
});
