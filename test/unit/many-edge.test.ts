/**
 * sendMany, reconcile and trackDeliveries at their edges: aborts, failing sources, twins, shifting
 * pages. On the in-process sandbox (or a fake service, for answers dropped before or after a send
 * was stored) and fake timers: "at once" is with no fake time advanced.
 */
import {
  MessagingClient,
  type SendMessageParams,
  SendOutcomeUnknownError,
  type SendResult,
  ValidationError,
} from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeNow } from '../helpers/fake-clock.js';
import { dropped, fakeService, json, messageLog } from '../helpers/fake-service.js';
import { settle } from '../helpers/simulated-hour.cjs';

const SENDER = '+15550001001';
const text = (i: number, content = `Parcel ${i} is on its way`): SendMessageParams => ({
  sender_phone: SENDER,
  to_phone: SANDBOX_PHONES.reads,
  type: 'text',
  content,
});

function sandboxClient() {
  const sandbox = createSandbox({ delivery: { deliveredAfterMs: 30, readAfterMs: 60 } });
  const { baseUrl, keys } = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  return { sandbox, client: new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch }) };
}

/** A source that yields `items`, then never answers again (a stuck cursor). */
async function* stuckAfter<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
  await new Promise(() => undefined);
}

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The value of `promise`, fake time advanced in 10 ms moves until it settles. */
async function settled<T>(promise: Promise<T>): Promise<T> {
  return (await settle(promise, (ms) => vi.advanceTimersByTimeAsync(ms), 10)).value;
}

/** How `run` has ended so far: 'resolved', its error, or 'still pending'. */
function watch(run: Promise<unknown>): { outcome: unknown } {
  const watched: { outcome: unknown } = { outcome: 'still pending' };
  run.then(
    () => {
      watched.outcome = 'resolved';
    },
    (error: unknown) => {
      watched.outcome = error;
    },
  );
  return watched;
}

describe('aborts and stuck or failing sources', () => {
  it('sendMany: an abort answers at once even while the source is stuck', async () => {
    const { client } = sandboxClient();
    const controller = new AbortController();
    const run = (async () => {
      for await (const _ of client.messages.sendMany(stuckAfter([text(1)]), { signal: controller.signal })) {
        // the one result comes, then the source hangs
      }
    })();
    const watched = watch(run);
    await vi.advanceTimersByTimeAsync(100);
    expect(watched.outcome).toBe('still pending');
    controller.abort(new Error('stop'));
    await vi.advanceTimersByTimeAsync(0);
    expect(watched.outcome).toBeInstanceOf(Error);
    expect((watched.outcome as Error).message).toBe('stop');
  });

  it('trackDeliveries: an abort answers at once even while the ids source is stuck, or endless and synchronous', async () => {
    const { client } = sandboxClient();
    const log = await settled(client.messages.send(text(1)));
    function* endless() {
      for (let id = 1; ; id++) yield id;
    }
    for (const ids of [stuckAfter([log.id]), endless()]) {
      const controller = new AbortController();
      const run = (async () => {
        for await (const _ of client.trackDeliveries(ids, {
          signal: controller.signal,
          interval: 10,
          timeout: 60_000,
        })) {
          // updates come as they come
        }
      })();
      const watched = watch(run);
      await vi.advanceTimersByTimeAsync(150);
      expect(watched.outcome).toBe('still pending');
      controller.abort(new Error('enough'));
      await vi.advanceTimersByTimeAsync(0);
      expect((watched.outcome as Error).message).toBe('enough');
    }
  });

  it('sendMany: a source that throws stops the reading; the sends in flight are yielded, then the error', async () => {
    const { sandbox, client } = sandboxClient();
    async function* failing() {
      for (let i = 0; i < 4; i++) yield text(i);
      throw new Error('cursor lost');
    }
    const seen: SendResult[] = [];
    const run = (async () => {
      for await (const result of client.messages.sendMany(failing(), { concurrency: 4 })) seen.push(result);
    })();
    await expect(settled(run)).rejects.toThrow('cursor lost');
    expect(seen.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(sandbox.messages('acme')).toHaveLength(4);
  });

  it('trackDeliveries: a source that throws stops the reading; the ids read are followed to the end, then the error', async () => {
    const { client } = sandboxClient();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await settled(client.messages.send(text(i)))).id);
    async function* failing() {
      yield* ids;
      throw new Error('cursor lost');
    }
    const seen: { id: number; status: string }[] = [];
    const run = (async () => {
      for await (const update of client.trackDeliveries(failing(), { until: 'read', interval: 20, timeout: 3_000 })) {
        seen.push({ id: update.id, status: update.status });
      }
    })();
    await expect(settled(run)).rejects.toThrow('cursor lost');
    // Every id read before the failure reached `read`: none of their updates was dropped.
    for (const id of ids) expect(seen.filter((u) => u.id === id).at(-1)).toEqual({ id, status: 'read' });
  });

  it('an early break out of a stuck source does not hang', async () => {
    const { client } = sandboxClient();
    const run = (async () => {
      for await (const _ of client.messages.sendMany(stuckAfter([text(1), text(2)]))) break;
    })();
    const watched = watch(run);
    await vi.advanceTimersByTimeAsync(0);
    expect(watched.outcome).toBe('resolved');
  });

  it('hostile arguments are ValidationErrors, thrown when the iterable is made', () => {
    const { client } = sandboxClient();
    const hostile = new Proxy(
      {},
      {
        has: () => {
          throw new Error('trap');
        },
      },
    );
    expect(() => client.messages.sendMany(hostile as never)).toThrow(ValidationError);
    expect(() => client.trackDeliveries(hostile as never)).toThrow(ValidationError);
  });
});

/**
 * A service that stores sends (dropping the connection after storing, or before, as told) and
 * lists logs newest first in pages of `pageSize`; `shift` adds a new log between two page reads.
 */
function service(options: {
  dropBefore?: (n: number) => boolean;
  dropAfter?: (n: number) => boolean;
  pageSize?: number;
}) {
  const logs: Record<string, unknown>[] = [];
  let posts = 0;
  let beforePage2: (() => void) | undefined;
  const server = fakeService((req) => {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'POST') {
      posts++;
      if (options.dropBefore?.(posts)) return dropped();
      const sent = JSON.parse(req.body) as Record<string, string>;
      const log = messageLog({
        id: logs.length + 1,
        content: sent['content'],
        sender_number_id: 1,
        request_payload: { to_phone: sent['to_phone'], type: 'text' },
        sent_at: new Date(req.at).toISOString(),
      });
      logs.push(log);
      if (options.dropAfter?.(posts)) return dropped();
      return json(201, { data: log });
    }
    if (url.pathname.endsWith('/sender-numbers')) return json(200, { data: [{ id: 1, phone: SENDER }] });
    const page = Number(url.searchParams.get('page') ?? 1);
    if (page === 2) beforePage2?.();
    const size = options.pageSize ?? 15;
    const newest = [...logs].reverse();
    const data = newest.slice((page - 1) * size, page * size);
    return json(200, { data, meta: { current_page: page, last_page: Math.max(1, Math.ceil(logs.length / size)) } });
  });
  const client = new MessagingClient({
    baseUrl: 'https://api.example.test',
    apiKey: 'k',
    maxRetries: 0,
    fetch: server.fetch,
  });
  return { logs, client, onPage2: (run: () => void) => (beforePage2 = run) };
}

describe('reconciliation at its edges', () => {
  it('two identical rows, one stored and one dropped before processing: the dropped one is unknown, never the twin', async () => {
    const { logs, client } = service({ dropBefore: (n) => n === 2 });
    const rows = [text(1, 'Same words'), text(2, 'Same words')];
    const results: SendResult[] = [];
    await settled(
      (async () => {
        for await (const result of client.messages.sendMany(rows, { concurrency: 1 })) results.push(result);
      })(),
    );
    expect(logs).toHaveLength(1);
    expect(results.map((r) => r.status)).toEqual(['sent', 'unknown']);
  });

  it('a log seen on two pages (the list shifted between reads) is one match: found, not ambiguous', async () => {
    const { logs, client, onPage2 } = service({ dropAfter: (n) => n === 1, pageSize: 2 });
    const error = (await settled(
      client.messages.send(text(1, 'Find me')).catch((e: unknown) => e),
    )) as SendOutcomeUnknownError;
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    // Two newer logs, so the target is on page 2... and one more lands between the page reads,
    // shifting the target's neighbour from page 1 onto page 2 as well.
    await settled(client.messages.send(text(2, 'Newer')));
    onPage2(() => {
      logs.push(
        messageLog({ id: 99, content: 'Late', sender_number_id: 1, sent_at: new Date(fakeNow()).toISOString() }),
      );
    });
    const outcome = await settled(
      client.messages.reconcile(error.params as NonNullable<typeof error.params>, { since: error.startedAt }),
    );
    expect(outcome).toMatchObject({ status: 'found', log: { content: 'Find me' } });
  });

  it('a log 21 pages back is found (the walk used to stop at 10 pages); maxPages stops it and says so', async () => {
    const { logs, client } = service({ dropAfter: (n) => n === 1, pageSize: 2 });
    const error = (await settled(
      client.messages.send(text(1, 'Deep')).catch((e: unknown) => e),
    )) as SendOutcomeUnknownError;
    for (let i = 0; i < 40; i++) {
      logs.push(messageLog({ id: logs.length + 1, content: `Later ${i}`, sent_at: new Date(fakeNow()).toISOString() }));
    }
    const params = error.params as NonNullable<typeof error.params>;
    const outcome = await settled(client.messages.reconcile(params, { since: error.startedAt }));
    expect(outcome).toMatchObject({ status: 'found', log: { content: 'Deep' } });
    const capped = await settled(client.messages.reconcile(params, { since: error.startedAt, maxPages: 3 }));
    expect(capped).toEqual({ status: 'not-found', searched: { pages: 3, logs: 6, complete: false } });
  });

  it("one caller's abort does not fail another reconcile waiting on the same sender-number read", async () => {
    const { client } = service({});
    await settled(client.messages.send(text(1, 'Hello')));
    const quitter = new AbortController();
    const a = client.messages.reconcile(text(1, 'Hello'), { since: new Date(0), signal: quitter.signal });
    const b = client.messages.reconcile(text(1, 'Hello'), { since: new Date(0) });
    quitter.abort(new Error('A gave up'));
    await expect(settled(a)).rejects.toThrow('A gave up');
    await expect(settled(b)).resolves.toMatchObject({ status: 'found' });
  });
});
