/**
 * rateLimit.perSender and perRecipient against the in-process sandbox under fake timers: the
 * lanes, the sandbox's request log and every hold follow one clock, so each claim is about the
 * order and the exact gaps of what reached the service, whatever else the machine runs.
 * The waits themselves (aborts, timers, memory, a fresh process) are rate-lanes-waits.test.ts.
 */
import fc from 'fast-check';
import { MessagingClient, type SendResult, ValidationError } from 'tenant-messaging';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { busiest } from '../helpers/arrivals.js';
import { fakeNow } from '../helpers/fake-clock.js';
import { lanesSandbox, outcome, settle, text } from '../helpers/lanes-sandbox.js';

afterEach(() => vi.useRealTimers());

const gaps = (times: readonly number[]) => times.slice(1).map((at, i) => at - (times[i] as number));

describe('rateLimit.perSender and perRecipient: lanes where the service counts', () => {
  it('no sender exceeds its lane in any sliding second, nor any recipient its gap, whatever the mix and holds (property)', async () => {
    const senders = ['+15550000001', '+15550000002', '+15550000003'];
    const phones = ['+15551230001', '+15551230002', '+15551230003', '+15551230004'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 })), {
          minLength: 4,
          maxLength: 14,
        }),
        fc.integer({ min: 3, max: 6 }),
        fc.integer({ min: 30, max: 90 }),
        // Each request held on its way in and its answer on its way back, up to 40 ms each.
        fc.array(fc.tuple(fc.nat(40), fc.nat(40)), { minLength: 1, maxLength: 14 }),
        async (mix, perSecond, minInterval, holds) => {
          const { client, sends } = lanesSandbox(
            { perSender: { requestsPerSecond: perSecond }, perRecipient: { minInterval } },
            senders,
            (nth) => holds[nth % holds.length] as [number, number],
          );
          // Each recipient written two ways (with and without its `+`): the lanes must see one person.
          const items = mix.map(([s, r], i) => {
            const phone = phones[r] as string;
            return text(senders[s] as string, i % 2 === 0 ? phone : phone.slice(1));
          });
          const results: SendResult[] = [];
          const run = (async () => {
            for await (const result of client.messages.sendMany(items, { concurrency: 6 })) results.push(result);
          })();
          await settle(run, 10);
          expect(results.every((r) => r.status === 'sent')).toBe(true);
          expect(sends()).toHaveLength(items.length);
          for (const sender of senders) expect(busiest(sends({ sender }), 1000)).toBeLessThanOrEqual(perSecond);
          for (const recipient of phones)
            for (const gap of gaps(sends({ recipient }))) expect(gap).toBeGreaterThanOrEqual(minInterval);
          vi.useRealTimers();
        },
      ),
      { numRuns: 25 },
    );
  });

  it("a send waiting for its recipient never delays sends to others (sendMany's slots go on)", async () => {
    const ANSWER_MS = 5;
    const { client, sends } = lanesSandbox({ perRecipient: { minInterval: 300 } }, ['+15550000001'], () => [
      0,
      ANSWER_MS,
    ]);
    // Six sends to one person first, then ten to ten others, at concurrency 2.
    const busy = Array.from({ length: 6 }, () => text('+15550000001', '+15557654321'));
    const others = Array.from({ length: 10 }, (_, i) => text('+15550000001', `+1555765430${i}`));
    const results: SendResult[] = [];
    const run = (async () => {
      for await (const result of client.messages.sendMany([...busy, ...others], { concurrency: 2 }))
        results.push(result);
    })();
    const { tookMs } = await settle(run);
    expect(results.map((r) => r.status)).toEqual(Array(16).fill('sent'));
    // The busy person's sends come one lane interval after the answer before: no sooner, no later.
    const toBusy = sends({ recipient: '+15557654321' });
    expect(gaps(toBusy)).toEqual(Array(5).fill(300 + ANSWER_MS));
    // Every send to the others reached the service before the busy person's second one may go.
    expect(sends()).toHaveLength(16);
    const second = toBusy[1] as number;
    const othersAt = others.map((params) => sends({ recipient: params.to_phone }));
    for (const [at] of othersAt) expect(at).toBeLessThan(second);
    // ...and the run takes as long as the busy person's lane allows, not a moment more.
    expect(tookMs).toBe((toBusy.at(-1) as number) - (toBusy[0] as number) + ANSWER_MS);
  });

  it("a busy sender never delays another sender's sends", async () => {
    const ANSWER_MS = 5;
    const quiet = Array.from({ length: 4 }, (_, i) => `+1555000001${i}`);
    // The tenant owns the busy number as written both ways, so the service takes either spelling.
    const { client, sends } = lanesSandbox(
      { perSender: { requestsPerSecond: 4 } },
      ['+15550000001', '+1 555 000 0001', ...quiet],
      () => [0, ANSWER_MS],
    );
    // The busy sender written two ways: one lane.
    const busy = Array.from({ length: 12 }, (_, i) =>
      text(i % 2 ? '+15550000001' : '+1 555 000 0001', `+1555765431${i % 10}`),
    );
    const done: number[] = [];
    const started = fakeNow();
    const run = Promise.all(
      [...busy, ...quiet.map((sender) => text(sender, '+15557654321'))].map(async (params, i) => {
        await client.messages.send(params);
        done[i] = fakeNow() - started;
      }),
    );
    await settle(run);
    // 12 sends at 4 per sliding second: four at once, four once those places end, then the last four.
    const fromBusy = sends({ sender: '+15550000001' });
    expect(fromBusy.map((at) => at - (fromBusy[0] as number))).toEqual([
      ...Array(4).fill(0),
      ...Array(4).fill(1000 + ANSWER_MS),
      ...Array(4).fill(2 * (1000 + ANSWER_MS)),
    ]);
    expect(busiest(fromBusy, 1000)).toBe(4);
    // The quiet senders' sends all went before the busy sender's fifth, and were answered at once.
    for (const sender of quiet) expect(sends({ sender })[0]).toBeLessThan(fromBusy[4] as number);
    expect(done.slice(busy.length)).toEqual(Array(4).fill(ANSWER_MS));
  });

  it('many lanes: forgetting idle ones never drops a lane a send is about to hold', async () => {
    const senders = Array.from({ length: 31 }, (_, i) => `+1666000${String(i).padStart(4, '0')}`);
    const { client, sends } = lanesSandbox(
      { perSender: { requestsPerSecond: 100 }, perRecipient: { minInterval: 150 } },
      [...senders, '+16661111111', '+16662222222'],
    );
    // A fresh client forgets idle lanes once it knows 64. Make it know 63 (31 sends from new
    // senders to new people, and one from a known sender to a new person), then send twice to a
    // new person from two new senders: the 64th and 65th lanes come while these sends use them.
    for (const [i, sender] of senders.entries())
      await settle(client.messages.send(text(sender, `+15552${String(i + 1).padStart(6, '0')}`)));
    await settle(client.messages.send(text(senders[0] as string, '+15559999999')));
    await vi.advanceTimersByTimeAsync(200); // every lane idle again
    const to = '+15558888888';
    await settle(
      Promise.all([client.messages.send(text('+16661111111', to)), client.messages.send(text('+16662222222', to))]),
    );
    expect(sends()).toHaveLength(34);
    expect(gaps(sends({ recipient: to }))).toEqual([150]);
  });

  it('a sendMany that stops does not send what its lanes still hold', async () => {
    const { client, sends } = lanesSandbox({ perRecipient: { minInterval: 400 } }, ['+15550000001']);
    const items = Array.from({ length: 8 }, () => text('+15550000001', '+15557654321'));
    const controller = new AbortController();
    const results: SendResult[] = [];
    const run = (async () => {
      for await (const result of client.messages.sendMany(items, { concurrency: 2, signal: controller.signal })) {
        results.push(result);
        controller.abort(new Error('enough'));
      }
    })();
    const stopped = await settle(outcome(run));
    // One send went; the ones its recipient's lane held back were never sent, and said so at once.
    expect(stopped).toEqual({ value: 'Error: enough', tookMs: 0 });
    expect(sends()).toHaveLength(1);
    const failed = results.filter((r) => r.status === 'failed');
    for (const r of failed) expect(r.status === 'failed' && r.error.message).toMatch(/^Not sent: the batch stopped/);
    await vi.advanceTimersByTimeAsync(500);
    expect(sends()).toHaveLength(1);
  });

  it('refuses bad lane options before any request, saying what is accepted', async () => {
    const bad = [
      [{ perSender: { requestsPerSecond: 0 } }, 'rateLimit.perSender.requestsPerSecond'],
      [{ perSender: {} }, 'rateLimit.perSender.requestsPerSecond'],
      [{ perSender: 10 }, ''],
      [{ perRecipient: { minInterval: 1.5 } }, 'rateLimit.perRecipient.minInterval'],
      [{ perRecipient: { minIntervalMs: 100 } }, 'minIntervalMs'],
      [{ perRecipents: { minInterval: 100 } }, 'perRecipents'],
    ] as const;
    for (const [rateLimit, path] of bad) {
      const made = () =>
        new MessagingClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'tm_test_key', rateLimit: rateLimit as never });
      expect(made).toThrow(ValidationError);
      try {
        made();
      } catch (error) {
        expect((error as ValidationError).issues.map((issue) => issue.path)).toContain(path);
      }
    }
  });
});
