/**
 * A send's recipient, parsed once: a queue whose quiet hours are the recipient's stores the
 * canonical number with the send (it parsed it for them), and a worker's per-recipient lane uses
 * it; a send stored without it (a queue without those quiet hours, or an earlier version) is
 * parsed at its first start and kept. Either way, every spelling of one number is one lane: what
 * the service saw decides (the smallest gap between two sends to the recipient).
 */
import fc from 'fast-check';
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { type Fixture, fastWorker, runs, SENDER, startFixture, until } from '../fixture.js';

const MIN_INTERVAL = 150;
const SENDS = { route: 'POST /messages' } as const;

/**
 * Numbers libphonenumber-js reads as valid, each as its country code and the rest; none ending in
 * 0000, which the sandbox refuses as unreachable (SANDBOX_PHONES.unreachable).
 */
const number = fc
  .oneof(
    fc.integer({ min: 0, max: 9_999 }).map((n) => ['1', `201555${String(n).padStart(4, '0')}`] as const),
    fc.integer({ min: 0, max: 999 }).map((n) => ['44', `2079460${String(n).padStart(3, '0')}`] as const),
    fc.integer({ min: 0, max: 99_999_999 }).map((n) => ['49', `151${String(n).padStart(8, '0')}`] as const),
    fc.integer({ min: 0, max: 99_999_999 }).map((n) => ['33', `6${String(n).padStart(8, '0')}`] as const),
  )
  .filter(([, rest]) => !rest.endsWith('0000'));

/** Ways people write one international number; every one keeps its country code. */
const spellings = {
  plain: (cc: string, rest: string) => `+${cc}${rest}`,
  spaced: (cc: string, rest: string) => `+${cc} ${rest.slice(0, 3)} ${rest.slice(3, 6)} ${rest.slice(6)}`,
  dashed: (cc: string, rest: string) => `+${cc}-${rest.slice(0, 3)}-${rest.slice(3)}`,
  bracketed: (cc: string, rest: string) => `+${cc} (${rest.slice(0, 3)}) ${rest.slice(3)}`,
  dotted: (cc: string, rest: string) => `+${cc}.${rest.slice(0, 4)}.${rest.slice(4)}`,
  padded: (cc: string, rest: string) => `  +${cc} ${rest}  `,
  // Without its `+`: read as if it had it (not for 'recipient' quiet hours, which need the +).
  bare: (cc: string, rest: string) => `${cc}${rest}`,
};
type Spelling = keyof typeof spellings;
const withPlus = fc.constantFrom<Spelling>('plain', 'spaced', 'dashed', 'bracketed', 'dotted', 'padded');

/** Quiet hours in the recipient's zones that do not hold now anywhere: 12 hours away, for an hour. */
function farQuietHours() {
  const hour = (new Date().getUTCHours() + 12) % 24;
  const clock = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
  return { start: clock(hour), end: clock(hour + 1), timeZone: 'recipient' as const };
}

describe.runIf(runs)("a send's recipient, parsed once", () => {
  let f: Fixture;
  const name = uniqueName();
  let quiet: MessagingQueue;
  let plain: MessagingQueue;
  let worker: MessagingWorker;
  beforeAll(async () => {
    f = await startFixture();
    quiet = new MessagingQueue({ connection: f.connection, name, quietHours: farQuietHours() });
    plain = new MessagingQueue({ connection: f.connection, name });
    worker = new MessagingWorker(
      fastWorker(f, name, {
        concurrency: 4,
        rateLimit: { requestsPerSecond: 200, perRecipient: { minInterval: MIN_INTERVAL } },
      }),
    );
    await worker.ready();
  });
  afterAll(async () => {
    await worker?.close();
    await quiet?.close();
    await plain?.close();
    await f?.close();
  });

  const text = (to: string, content: string) => ({
    sender_phone: SENDER,
    to_phone: to,
    type: 'text' as const,
    content,
  });

  it('is stored at enqueue by recipient quiet hours; a send stored without it is parsed at its first start, then keeps it', async () => {
    const raw = f.raw(name);
    try {
      const stored = await quiet.send(text('+442079460999', 'stored'), { id: 'key-stored' });
      const later = await plain.send(text('+442079460998', 'later'), { id: 'key-later' });
      expect((await raw.getJob(stored))?.data.recipient).toBe('+442079460999');
      expect((await raw.getJob(later))?.data.recipient).toBeUndefined();
      await until(
        async () => (await plain.counts()).sent >= 2,
        10_000,
        () => 'the two sends were not sent',
      );
      expect((await raw.getJob(later))?.data.recipient).toBe('+442079460998');
      expect((await raw.getJob(stored))?.data.recipient).toBe('+442079460999');
    } finally {
      await raw.close();
    }
  });

  it('every spelling of a number is stored as its one canonical form', async () => {
    // No worker on this queue: the sends stay as stored (most of these spellings the service refuses).
    const other = uniqueName();
    const queue = new MessagingQueue({ connection: f.connection, name: other, quietHours: farQuietHours() });
    const raw = f.raw(other);
    let round = 0;
    try {
      await fc.assert(
        fc.asyncProperty(number, withPlus, async ([cc, rest], spelling) => {
          const id = await queue.send(text(spellings[spelling](cc, rest), 'spelt'), { id: `spelt-${round++}` });
          expect((await raw.getJob(id))?.data.recipient).toBe(`+${cc}${rest}`);
        }),
        { numRuns: 30 },
      );
    } finally {
      await raw.close();
      await queue.close();
    }
  });

  it('two spellings of one number share one lane, whether the number was stored with the send or not', async () => {
    let round = 0;
    await fc.assert(
      // The spellings the service takes (an optional + and the digits): the first, stored with
      // its canonical number by its quiet hours, has the + they need; the second has none.
      fc.asyncProperty(number, fc.constantFrom<Spelling>('plain', 'bare'), async ([cc, rest], third) => {
        round++;
        const digits = `+${cc}${rest}`;
        const ids = [
          await quiet.send(text(spellings.plain(cc, rest), `a ${round}`), { id: `r${round}-a` }),
          // Two without it, as a queue without those quiet hours (or an earlier version) stores them.
          await plain.send(text(spellings.bare(cc, rest), `b ${round}`), { id: `r${round}-b` }),
          await plain.send(text(spellings[third](cc, rest), `c ${round}`), { id: `r${round}-c` }),
        ];
        const log = f.sandbox.requestLog;
        await until(
          () => log.acceptedAt({ ...SENDS, recipient: digits }).length >= ids.length,
          10_000,
          () => `the sends to ${digits} were not all accepted`,
        );
        expect(log.acceptedAt({ ...SENDS, recipient: digits })).toHaveLength(3);
        expect(log.minGap({ ...SENDS, recipient: digits })).toBeGreaterThanOrEqual(MIN_INTERVAL);
      }),
      { numRuns: 6 },
    );
  }, 60_000);
});
