/**
 * The fleet against a Redis that restarts with and without its data, stalls (SIGSTOP), or is down
 * when the fleet starts, on real servers. The invariants: never sent twice, never lost in silence
 * (a loss is a DatastoreError), no crash, no hang.
 */
import { DatastoreError, MessagingQueue } from 'tenant-messaging/bullmq';
import { describe, expect, it } from 'vitest';
import { answersPing, uniqueName } from '../../../helpers/redis.js';
import { expectStoredOnce, readUpdates, recorder, storedCounts, text, until } from '../fixture.js';
import { untilDrained } from './drained.js';
import { available, useRedisFaults } from './redis-fixture.js';

const fx = useRedisFaults();
const { redis, worker } = fx;

describe.runIf(available)('a Redis that restarts, forgets or stalls', () => {
  it('restarted with its append-only file mid-send: every send is sent exactly once, nothing lost, the worker carries on', async () => {
    const server = await redis();
    const name = uniqueName('aof-restart');
    const queue = new MessagingQueue({ connection: server.connection, name });
    const { lines, logger } = recorder();
    const w = worker(server, name, { logger });
    const contents = Array.from({ length: 60 }, (_, i) => `${name} ${i}`);
    // A reader across the restart: it carries on by itself, and misses no update.
    const sent = readUpdates(queue);
    try {
      await w.ready();
      fx.sandbox.faults.add({ kind: 'latency', latencyMs: 150, route: 'POST /messages', ratio: 1 });
      await queue.sendMany(contents.map((content, i) => ({ params: { ...text(i), content }, id: `m-${i}` })));
      await until(
        () => storedCounts(fx.sandbox, contents).some((n) => n > 0),
        30_000,
        () => 'the first sends',
      );
      await server.restart(500); // down half a second (the fault's shape), back with its file
      await until(
        () => storedCounts(fx.sandbox, contents).every((n) => n >= 1),
        60_000,
        () => `sent: ${storedCounts(fx.sandbox, contents).join('')}`,
      );
      // Nothing left to run: no POST can come after the count.
      await untilDrained(queue);
      await w.close();
      expectStoredOnce(storedCounts(fx.sandbox, contents));
      expect(lines.filter((line) => /forgot/.test(line.message))).toEqual([]);
      await until(
        () => sent.ids.size === 60,
        30_000,
        () => `updates read: ${sent.ids.size} of 60`,
      );
      await sent.stop(); // ended by the signal, never by the restart
    } finally {
      sent.abort();
      fx.sandbox.faults.clear();
      await w.close();
      await queue.close();
    }
  }, 90_000);

  it("restarted without persistence: the loss is reported (a DatastoreError to the next send, to a reader, and to the worker's logger), never silent", async ({
    onTestFailed,
  }) => {
    // Which step a run that timed out was at: a hang says nothing else.
    let step = 'starting Redis';
    const at = (next: string) => {
      step = `${next} (${Math.round(performance.now())} ms)`;
    };
    onTestFailed(() => console.error(`restarted without persistence: stopped at ${step}`));
    const server = await redis({ persistence: 'none' });
    const name = uniqueName('forgets');
    const queue = new MessagingQueue({ connection: server.connection, name, allowUnsafeDatastore: true });
    const { lines, logger } = recorder();
    const w = worker(server, name, { allowUnsafeDatastore: true, logger });
    const reading = (async () => {
      const seen: string[] = [];
      try {
        for await (const update of queue.updates()) seen.push(update.status);
        return { seen, error: undefined };
      } catch (error) {
        return { seen, error };
      }
    })();
    try {
      at('w.ready()');
      await w.ready();
      at('the first send');
      await queue.send({ ...text(1), content: `${name} before` }, { id: 'before' });
      await until(
        () => storedCounts(fx.sandbox, [`${name} before`])[0] === 1,
        10_000,
        () => 'the first send',
      );
      at('w.close()');
      await w.close(); // nobody sends now: what is enqueued next stays waiting, and is lost by the restart
      const waiting = Array.from({ length: 20 }, (_, i) => `${name} waiting ${i}`);
      at('sendMany');
      await queue.sendMany(waiting.map((content, i) => ({ params: { ...text(i), content }, id: `w-${i}` })));
      expect((await queue.counts()).waiting).toBe(20);
      const looked = Date.now(); // the queue's guard looked at its marker by then
      const w2 = worker(server, name, { allowUnsafeDatastore: true, logger });
      at('w2.close()');
      await w2.close(); // a worker that saw the queue before the loss, then went away
      const w3 = worker(server, name, { allowUnsafeDatastore: true, logger });
      at('w3.ready()');
      await w3.ready();
      at('server.restart()');
      await server.restart();
      // A queue looks at its marker at most once a second (a documented window): the send must
      // come after the window of its last look to be the call that finds the loss.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, looked + 1_000 - Date.now())));

      at('the send after the loss');
      const lost = await queue.send({ ...text(2), content: `${name} after` }, { id: 'after' }).catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(DatastoreError);
      expect(lost).toMatchObject({ reason: 'forgot' });
      expect((lost as DatastoreError).since).toBeInstanceOf(Date);
      expect((lost as Error).message).toMatch(/enqueue them again with the same ids[\s\S]*This call did nothing/);
      // Reported once: the queue carries on with a new marker, and the send tried again is stored and sent.
      at('the send tried again');
      await queue.send({ ...text(2), content: `${name} after` }, { id: 'after' });
      await until(
        () => storedCounts(fx.sandbox, [`${name} after`])[0] === 1,
        30_000,
        () => 'the send after the loss',
      );
      expect(storedCounts(fx.sandbox, waiting).every((n) => n === 0)).toBe(true);
      // The reader ends by itself (it looks about once a second); a hang detector, not a measure.
      const read = await Promise.race([
        reading,
        new Promise((resolve) => setTimeout(() => resolve('still reading'), 20_000)),
      ]);
      expect(read).toMatchObject({ error: expect.any(DatastoreError) });
      expect((read as { error: DatastoreError }).error.reason).toBe('forgot');
      await until(
        () => lines.some((line) => /forgot the queue/.test(line.message)),
        20_000,
        () => JSON.stringify(lines),
      );
      at('w3.close()');
      await w3.close();
    } finally {
      at('closing');
      await w.close();
      await queue.close();
    }
  }, 60_000);

  it('stalled (SIGSTOP) for 3 s mid-send: no crash, no send twice or lost, and everything goes on once it resumes', async () => {
    const server = await redis();
    const name = uniqueName('stalled');
    const queue = new MessagingQueue({ connection: server.connection, name });
    const w = worker(server, name);
    const contents = Array.from({ length: 40 }, (_, i) => `${name} ${i}`);
    try {
      await w.ready();
      fx.sandbox.faults.add({ kind: 'latency', latencyMs: 100, route: 'POST /messages', ratio: 1 });
      await queue.sendMany(contents.map((content, i) => ({ params: { ...text(i), content }, id: `s-${i}` })));
      await until(
        () => storedCounts(fx.sandbox, contents).some((n) => n > 0),
        30_000,
        () => 'the first sends',
      );
      server.pause();
      // A send issued during the stall waits for the datastore, and completes once it resumes.
      const during = queue.send({ ...text(99), content: `${name} during` }, { id: 'during' });
      // The stall's length is the behaviour (the 3 s the test names, short of the workers' 5 s
      // lock): it must pass in full.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      server.resume();
      await during;
      const all = [...contents, `${name} during`];
      await until(
        () => storedCounts(fx.sandbox, all).every((n) => n >= 1),
        60_000,
        () => `sent: ${storedCounts(fx.sandbox, all).join('')}`,
      );
      // Nothing left to run: no POST can come after the count.
      await untilDrained(queue);
      await w.close();
      expect(storedCounts(fx.sandbox, all).filter((n) => n !== 1)).toEqual([]);
    } finally {
      server.resume();
      fx.sandbox.faults.clear();
      await w.close();
      await queue.close();
    }
  }, 90_000);

  it('down when the worker and the queue are made: they start once it is back, and send', async () => {
    const server = await redis();
    const name = uniqueName('down-at-start');
    // Down 2 s (the fault's shape): the fleet is made, and first tries, while it is down.
    const restarting = server.restart(2_000);
    await until(
      async () => !(await answersPing(server.port)),
      10_000,
      () => 'the server going down',
    );
    const queue = new MessagingQueue({ connection: server.connection, name });
    const { logger } = recorder();
    const w = worker(server, name, { logger });
    try {
      await restarting;
      await w.ready();
      const contents = Array.from({ length: 5 }, (_, i) => `${name} ${i}`);
      await queue.sendMany(contents.map((content, i) => ({ params: { ...text(i), content }, id: `d-${i}` })));
      await until(
        () => storedCounts(fx.sandbox, contents).every((n) => n === 1),
        20_000,
        () => `sent: ${storedCounts(fx.sandbox, contents).join('')}`,
      );
    } finally {
      await w.close();
      await queue.close();
    }
  }, 60_000);
});
