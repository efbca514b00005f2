/**
 * messages.list against a fake service in process (the answers of Laravel's paginator and of
 * services that bend it), on fake timers: what is requested, in what order, and when.
 */
import { MessagingClient, Page, ResponseValidationError } from 'tenant-messaging';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeService, fakeService, json, messageLog } from '../helpers/fake-service.js';

let server: FakeService | undefined;
beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
});
afterEach(() => {
  server = undefined;
  vi.useRealTimers();
});

const logs = (ids: number[]) => ids.map((id) => messageLog({ id }));

/** Laravel's resource paginator over 5 logs, 2 per page. */
function laravel(page: number) {
  const all = logs([5, 4, 3, 2, 1]);
  const base = 'http://service.example/api/v1/messages';
  return {
    data: all.slice((page - 1) * 2, page * 2),
    links: {
      first: `${base}?page=1`,
      last: `${base}?page=3`,
      prev: page > 1 ? `${base}?page=${page - 1}` : null,
      next: page < 3 ? `${base}?page=${page + 1}` : null,
    },
    meta: {
      current_page: page,
      from: (page - 1) * 2 + 1,
      last_page: 3,
      links: [],
      path: base,
      per_page: 2,
      to: Math.min(page * 2, 5),
      total: 5,
    },
  };
}

function serve(body: (query: URLSearchParams) => unknown) {
  server = fakeService((req) => json(200, body(new URL(req.url, 'http://x').searchParams)));
  return new MessagingClient({ baseUrl: 'https://api.example.test', apiKey: 'k', fetch: server.fetch });
}

describe('messages.list', () => {
  it("reads Laravel's paginator and walks every page with for await, keeping the query", async () => {
    const client = serve((q) => laravel(Number(q.get('page') ?? 1)));
    const first = await client.messages.list({ status: 'sent' });
    expect(first).toBeInstanceOf(Page);
    expect(first.data.map((l) => l.id)).toEqual([5, 4]);
    expect(first.meta).toMatchObject({ current_page: 1, last_page: 3, total: 5 });
    expect(first.hasNextPage()).toBe(true);

    const ids: number[] = [];
    for await (const log of client.messages.list({ status: 'sent' })) ids.push(log.id);
    expect(ids).toEqual([5, 4, 3, 2, 1]);
    expect(server?.requests.slice(1).map((r) => r.url)).toEqual([
      '/api/v1/messages?status=sent',
      '/api/v1/messages?status=sent&page=2',
      '/api/v1/messages?status=sent&page=3',
    ]);
  });

  it('getNextPage fetches the next page; the last page has none', async () => {
    const client = serve((q) => laravel(Number(q.get('page') ?? 1)));
    const third = await (await (await client.messages.list()).getNextPage()).getNextPage();
    expect(third.data.map((l) => l.id)).toEqual([1]);
    expect(third.hasNextPage()).toBe(false);
    await expect(third.getNextPage()).rejects.toThrow(/no next page/);
  });

  it('tolerates a bare array and { data } as one page', async () => {
    let client = serve(() => logs([2, 1]));
    let page = await client.messages.list();
    expect([page.data.length, page.meta, page.links, page.hasNextPage()]).toEqual([2, null, null, false]);
    client = serve(() => ({ data: logs([3]) }));
    page = await client.messages.list();
    expect([page.data.length, page.hasNextPage()]).toEqual([1, false]);
  });

  it("tolerates Laravel's plain paginator (counters at the top level)", async () => {
    const client = serve((q) => {
      const page = Number(q.get('page') ?? 1);
      return {
        current_page: page,
        data: logs(page === 1 ? [2] : [1]),
        last_page: 2,
        per_page: 1,
        total: 2,
        next_page_url: page === 1 ? '/x?page=2' : null,
      };
    });
    const ids: number[] = [];
    for await (const log of client.messages.list()) ids.push(log.id);
    expect(ids).toEqual([2, 1]);
  });

  it('follows only the page number of links.next, never the URL itself', async () => {
    const client = serve((q) =>
      q.get('page') === '7'
        ? { data: logs([1]), links: { next: null } }
        : { data: logs([2]), links: { next: 'https://evil.example/steal?page=7' } },
    );
    const ids: number[] = [];
    for await (const log of client.messages.list()) ids.push(log.id);
    expect(ids).toEqual([2, 1]);
    expect(server?.requests.map((r) => r.url)).toEqual(['/api/v1/messages', '/api/v1/messages?page=7']);
  });

  it('stops with ResponseValidationError when the service ignores the page parameter', async () => {
    // A proxy that drops the query string: every request answers page 1 of 3.
    const client = serve(() => laravel(1));
    const ids: number[] = [];
    const error = await (async () => {
      for await (const log of client.messages.list()) ids.push(log.id);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]?.path).toBe('meta.current_page');
    expect((error as Error).message).toMatch(/page 2 was asked for/);
    expect(ids).toEqual([5, 4]);
    expect(server?.requests).toHaveLength(2);
  });

  it('stops with ResponseValidationError when the service ignores page but links to page + 1 with no meta', async () => {
    // Every answer is the same items, with a next link one past whatever page was asked for.
    const client = serve((q) => ({
      data: logs([2, 1]),
      links: { next: `/api/v1/messages?page=${Number(q.get('page') ?? 1) + 1}` },
    }));
    const ids: number[] = [];
    const error = await (async () => {
      // The bound only makes an endless walk fail fast instead of timing out.
      for await (const log of client.messages.list()) if (ids.push(log.id) > 10) break;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]?.path).toBe('data');
    expect((error as Error).message).toMatch(/page 2 holds the same items/);
    expect(ids).toEqual([2, 1]);
    expect(server?.requests.map((r) => r.url)).toEqual(['/api/v1/messages', '/api/v1/messages?page=2']);
  });

  it('takes a page the caller asked for as the service answers it (a clamped page is no error)', async () => {
    const client = serve(() => laravel(3)); // a service that clamps page 99 to its last page
    const page = await client.messages.list({ page: 99 });
    expect(page.meta?.current_page).toBe(3);
    expect(page.hasNextPage()).toBe(false);
    expect(server?.requests.map((r) => r.url)).toEqual(['/api/v1/messages?page=99']);
  });

  it('does not follow a links.next that points back to the same page', async () => {
    const client = serve(() => ({ data: logs([1]), links: { next: '/api/v1/messages?page=1' } }));
    const ids: number[] = [];
    for await (const log of client.messages.list()) ids.push(log.id);
    expect(ids).toEqual([1]);
    expect(server?.requests).toHaveLength(1);
  });

  it('nothing is requested until the list is awaited or iterated', async () => {
    const client = serve(() => logs([1]));
    const pending = client.messages.list();
    // A second of fake time: whatever an eager list would have started (at once or on a timer) has.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(server?.requests).toHaveLength(0);
    await pending;
    expect(server?.requests).toHaveLength(1);
  });

  it('an invalid item raises ResponseValidationError naming its index', async () => {
    const client = serve(() => ({ data: [messageLog(), { id: 'x' }] }));
    const error = (await client.messages.list().catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues[0]?.path).toBe('data.1.id');
  });
});
