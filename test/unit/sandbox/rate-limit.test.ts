import fc from 'fast-check';
import { ValidationError } from 'tenant-messaging';
import { createSandbox, type RateLimit, type Sandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';

/** A sandbox on a clock the test moves, and a GET /me with a key of acme or globex. */
function clocked(limit: RateLimit | number | null, capacity?: number) {
  let clock = Date.UTC(2026, 10, 22, 23, 37, 5, 250);
  const sandbox: Sandbox = createSandbox({
    now: () => clock,
    rateLimit: typeof limit === 'number' ? { perMinute: limit } : limit,
    ...(capacity !== undefined && { requestLogCapacity: capacity }),
  });
  const get = (tenant: 'acme' | 'globex' = 'acme', path = '/me') =>
    sandbox.handle(
      new Request(`${sandbox.tenants[tenant]?.baseUrl}/api/v1${path}`, {
        headers: { accept: 'application/json', 'x-api-key': sandbox.tenants[tenant]?.keys.full ?? '' },
      }),
    );
  return {
    sandbox,
    get,
    now: () => clock,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('the sandbox rate limiter', () => {
  it('per second or per minute: Laravel fixed windows, counted in whole Unix seconds, with its headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'perSecond' | 'perMinute'>('perSecond', 'perMinute'),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 1500 }), { minLength: 1, maxLength: 40 }),
        async (unit, max, gaps) => {
          const windowMs = unit === 'perSecond' ? 1000 : 60_000;
          const scale = unit === 'perSecond' ? 1 : 60;
          const h = clocked(unit === 'perSecond' ? { perSecond: max } : { perMinute: max });
          // The reference: Laravel's limiter stores `now + decay` in whole seconds when a window opens.
          let end = Number.NEGATIVE_INFINITY;
          let hits = 0;
          const allowedAt: number[] = [];
          for (const gap of gaps) {
            h.advance(gap * scale);
            const now = h.now();
            if (now >= end) {
              end = Math.floor(now / 1000) * 1000 + windowMs;
              hits = 0;
            }
            const res = await h.get();
            expect(res.headers.get('x-ratelimit-limit')).toBe(String(max));
            if (hits < max) {
              hits++;
              allowedAt.push(now);
              expect(res.status).toBe(200);
              expect(res.headers.get('x-ratelimit-remaining')).toBe(String(max - hits));
              expect(res.headers.get('retry-after')).toBeNull();
            } else {
              expect(res.status).toBe(429);
              expect(await res.json()).toEqual({ message: 'Too Many Attempts.' });
              expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
              const retryAfter = res.headers.get('retry-after') ?? '';
              expect(retryAfter).toMatch(/^[1-9]\d*$/);
              expect(Number(retryAfter)).toBe(Math.max(1, Math.ceil((end - now) / 1000)));
              expect(Number(retryAfter)).toBeLessThanOrEqual(windowMs / 1000);
              expect(res.headers.get('x-ratelimit-reset')).toBe(String(end / 1000));
            }
          }
          expect(h.sandbox.requestLog.acceptedAt({ tenant: 'acme', route: 'GET /me' })).toEqual(allowedAt);
          // No aligned window ever lets more than `max` through.
          const perWindow = new Map<number, number>();
          for (const at of allowedAt) {
            const second = Math.floor(at / 1000);
            perWindow.set(second, (perWindow.get(second) ?? 0) + 1);
          }
          if (unit === 'perSecond') expect(Math.max(...perWindow.values())).toBeLessThanOrEqual(max);
        },
      ),
      { seed: 20261122, numRuns: 150 },
    );
  });

  it('keeps one window per API key: one tenant throttled leaves the other alone', async () => {
    const h = clocked({ perSecond: 1 });
    expect((await h.get('acme')).status).toBe(200);
    expect((await h.get('acme')).status).toBe(429);
    expect((await h.get('globex')).status).toBe(200);
  });

  it('setRateLimit: a number stays per minute; objects choose the unit; bad values are ValidationErrors', async () => {
    const h = clocked(null);
    expect((await h.get()).headers.get('x-ratelimit-limit')).toBeNull();
    h.sandbox.setRateLimit(1);
    await h.get();
    h.advance(1500);
    const minute = await h.get();
    expect([minute.status, minute.headers.get('retry-after')]).toEqual([429, '59']);
    h.sandbox.setRateLimit({ perSecond: 1 });
    await h.get();
    const second = await h.get();
    expect([second.status, second.headers.get('retry-after')]).toEqual([429, '1']);
    h.advance(1000);
    expect((await h.get()).status).toBe(200);
    for (const bad of [0, 1.5, -3, { perSecond: 0 }, { perMinute: 2.5 }, { perSecond: 1, perMinute: 1 }, {}, 'x']) {
      expect(() => h.sandbox.setRateLimit(bad as RateLimit)).toThrow(ValidationError);
    }
    expect(() => createSandbox({ rateLimit: { perSecond: Number.NaN } })).toThrow(/perSecond: must be an integer/);
  });

  it('requestLog: the server clock of every request let through, per tenant and route, in a bounded ring', async () => {
    const h = clocked({ perSecond: 3 }, 5);
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await h.get(i % 2 === 0 ? 'acme' : 'globex', i % 4 === 0 ? '/subscription' : '/me');
      if (res.status === 200) seen.push(h.now());
      h.advance(100);
    }
    const log = h.sandbox.requestLog;
    expect([log.total, log.size, log.capacity]).toEqual([seen.length, 5, 5]);
    expect(log.acceptedAt()).toEqual(seen.slice(-5));
    expect(log.acceptedAt({ tenant: 'globex' }).every((at) => seen.includes(at))).toBe(true);
    expect(log.acceptedAt({ route: 'POST /messages' })).toEqual([]);
    expect(log.acceptedAt({ tenant: 'nobody' })).toEqual([]);
    expect(log.maxInWindow(1000)).toBe(5);
    expect(log.maxInWindow(150)).toBe(2);
    h.sandbox.reset();
    expect([log.total, log.acceptedAt()]).toEqual([0, []]);
  });

  it('requestLog keeps at most 100,000 entries by default', async () => {
    const h = clocked(null);
    expect(h.sandbox.requestLog.capacity).toBe(100_000);
  });
});
