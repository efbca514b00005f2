/**
 * The outbox relay's LISTEN connection, lost again and again: each outage is one warning and the
 * first pause again, whatever came before. A failure count that never reset after a connection
 * had listened made each later outage wait longer (2 s, 4 s, 8 s... 30 s) and warn no more.
 * Fake timers and a fake pool: every pause is exact.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type OutboxClient, type OutboxPool, OutboxRelay } from '../../../../src/bullmq/outbox/relay.js';
import { outboxTable } from '../../../../src/bullmq/outbox/sql.js';
import { fakeNow } from '../../../helpers/fake-clock.js';

type Listener = (error?: Error) => void;

/** A pool whose clients answer every query with no rows; the LISTEN client's connection can be ended. */
function fakePool() {
  const listens: { at: number; end: () => void }[] = [];
  const pool: OutboxPool = {
    async connect() {
      const ends = new Set<Listener>();
      // The overloads of `on` and `off` as one loose signature: this fake reads only 'end'.
      const client = {
        async query(text: string) {
          if (text.startsWith('LISTEN')) {
            listens.push({
              at: fakeNow(),
              end: () => {
                for (const end of [...ends]) end();
              },
            });
          }
          return { rows: [] };
        },
        release: () => undefined,
        on(event: string, listener: Listener) {
          if (event === 'end') ends.add(listener);
        },
        off(event: string, listener: Listener) {
          if (event === 'end') ends.delete(listener);
        },
      };
      return client as unknown as OutboxClient;
    },
  };
  return { pool, listens };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the outbox relay, its LISTEN connection lost', () => {
  it('warns once per outage and listens again after the first pause, however many outages came before', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 120_000 }), { minLength: 1, maxLength: 6 }),
        async (healthy) => {
          vi.useFakeTimers({ now: Date.UTC(2026, 11, 7) });
          const { pool, listens } = fakePool();
          const warnings: string[] = [];
          const logger = { debug() {}, info() {}, warn: (message: string) => warnings.push(message), error() {} };
          const relay = new OutboxRelay(
            'q',
            outboxTable('public', 'outbox'),
            { addStored: async () => {} },
            {
              pool,
              logger,
              interval: 60_000,
            },
          );
          try {
            await vi.advanceTimersByTimeAsync(0);
            for (const [outage, ms] of healthy.entries()) {
              await vi.advanceTimersByTimeAsync(ms);
              const lostAt = fakeNow();
              listens.at(-1)?.end();
              await vi.advanceTimersByTimeAsync(2_000);
              expect(listens).toHaveLength(outage + 2);
              // The first pause, 2 s, after every outage: not 4, 8... 30 s.
              expect((listens.at(-1)?.at ?? 0) - lostAt).toBe(2_000);
              expect(warnings).toHaveLength(outage + 1);
            }
          } finally {
            await relay.close();
            vi.useRealTimers();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
