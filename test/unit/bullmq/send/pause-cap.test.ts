/**
 * A 429's pause has a ceiling: whatever `Retry-After` says (seconds of any size, a fraction, an
 * HTTP date in the past or in the year 9999, garbage, nothing), the queue pauses between 1 ms and
 * the client's own cap, exactly what was asked when it is within the cap; the send that drew it is
 * reported `rate-limited` with the pause's end, and a capped pause is logged.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { retryAfterMs } from '../../../../src/api-error.js';
import { MAX_PAUSE_MS } from '../../../../src/bullmq/send/pause.js';
import { DEFAULT_RETRY_POLICY } from '../../../../src/core/call/retry.js';
import { oneJob } from './one-job.js';

const NOW = Date.parse('2026-12-07T12:00:00.000Z');

/** Every form a Retry-After header can take, and none. */
const retryAfter = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: 0, max: 10 ** 12 }).map(String),
  fc.double({ min: 0, max: 1e7, noNaN: true }).map((s) => s.toFixed(3)),
  fc.constantFrom('0', '1', '59', '60', '61', '86400', 'Fri, 31 Dec 9999 23:59:59 GMT'),
  fc.date({ min: new Date(0), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toUTCString()),
  fc.string({ maxLength: 20 }),
);

describe("a 429's pause of the whole queue", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());

  it('is capped as the client caps Retry-After', () => {
    expect(MAX_PAUSE_MS).toBe(DEFAULT_RETRY_POLICY.maxRetryAfterMs);
  });

  it('lasts what was asked within the cap, the cap beyond it, and is reported and logged', async () => {
    await fc.assert(
      fc.asyncProperty(retryAfter, async (header) => {
        const headers: Record<string, string> = header === undefined ? {} : { 'retry-after': header };
        const one = await oneJob({
          answer: (method) =>
            method === 'POST' ? new Response('{"message":"Too Many Attempts."}', { status: 429, headers }) : undefined,
        });
        const ended = await one.start();
        expect(ended).toMatchObject({ error: expect.any(one.RateLimited) });
        const asked = retryAfterMs(header === undefined ? {} : { 'retry-after': header }, NOW);
        expect(one.pauses).toHaveLength(1);
        const [ms] = one.pauses as [number];
        expect(ms).toBeGreaterThanOrEqual(1);
        expect(ms).toBeLessThanOrEqual(MAX_PAUSE_MS);
        if (asked === undefined) expect(ms).toBe(1_000);
        else expect(ms).toBe(asked > MAX_PAUSE_MS ? MAX_PAUSE_MS : Math.max(1, Math.ceil(asked)));
        expect(one.updates).toEqual([
          {
            id: 'order-1',
            status: 'rate-limited',
            until: new Date(NOW + ms).toISOString(),
            error: { name: 'RateLimitError', message: expect.stringContaining(`pauses ${ms} ms`), status: 429 },
          },
        ]);
        expect(one.warnings.map((w) => w.message)).toEqual(
          asked !== undefined && asked > MAX_PAUSE_MS
            ? ['MessagingWorker: a 429 asked for a pause beyond the cap']
            : [],
        );
        // Back to `queued`, one POST made: the next start sends it.
        expect(one.job.data.phase).toBe('queued');
        expect(one.events.filter((e) => e === 'POST /messages')).toHaveLength(1);
      }),
      { numRuns: 200 },
    );
  });
});
