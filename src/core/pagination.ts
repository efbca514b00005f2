import { issuesFromZod, ResponseValidationError, ValidationError } from '../errors.js';
import { isPlainObject } from '../internal/values/is-plain-object.js';
import type { ListQuery, PageLinks, PageMeta } from '../types/query.js';
import type { APIPromise, WithResponse } from '../types/response.js';
import type { Schema } from './call/parse.js';
import type { ApiResult } from './call/response.js';

/**
 * One page of a list. Iterate it with `for await` to walk this page and every following one.
 *
 * @example
 * ```ts
 * const page = await client.messages.list({ page: 2 })
 * console.log(page.data.length, page.meta?.total)
 * if (page.hasNextPage()) await page.getNextPage()
 * ```
 */
export class Page<T> implements AsyncIterable<T> {
  /** The items of this page. */
  readonly data: T[];
  /** Paging counters, or null when the service sent none (a bare array or `{ data }`). */
  readonly meta: PageMeta | null;
  /** Paging links, or null when the service sent none. */
  readonly links: PageLinks | null;
  readonly #query: ListQuery;
  readonly #fetchPage: (query: ListQuery) => Promise<Page<T>>;
  readonly #endpoint: string;
  readonly #status: number;

  /** Pages are made by `list()` and `getNextPage()`; there is no need to construct one. */
  constructor(
    data: T[],
    meta: PageMeta | null,
    links: PageLinks | null,
    query: ListQuery,
    fetchPage: (query: ListQuery) => Promise<Page<T>>,
    endpoint: string,
    status: number,
  ) {
    this.data = data;
    this.meta = meta;
    this.links = links;
    this.#query = query;
    this.#fetchPage = fetchPage;
    this.#endpoint = endpoint;
    this.#status = status;
  }

  /**
   * True when the service says another page follows.
   *
   * @example
   * ```ts
   * let page = await client.messages.list()
   * while (page.hasNextPage()) page = await page.getNextPage()
   * ```
   */
  hasNextPage(): boolean {
    return this.#nextPageNumber() !== undefined;
  }

  /**
   * Fetches the next page with the same query; rejects with `ValidationError` when there is none.
   *
   * @example
   * ```ts
   * const second = await (await client.messages.list()).getNextPage()
   * ```
   */
  getNextPage(): Promise<Page<T>> {
    const page = this.#nextPageNumber();
    if (page === undefined) {
      return Promise.reject(
        new ValidationError('Cannot fetch the next page', [
          { path: 'page', message: 'there is no next page; check hasNextPage() first' },
        ]),
      );
    }
    return this.#fetchPage({ ...this.#query, page }).then((next) => {
      // A service or proxy that ignores the `page` parameter answers page 1 whatever was asked,
      // and walking the pages would read "page 2" forever: say so instead.
      const answered = next.meta?.current_page;
      if (typeof answered === 'number' && answered !== page) {
        throw new ResponseValidationError(this.#endpoint, next.#status, { meta: next.meta }, [
          {
            path: 'meta.current_page',
            message: `is ${answered}, but page ${page} was asked for: the service (or a proxy before it) ignored the page parameter, so paging stopped rather than reading the same page again`,
          },
        ]);
      }
      // Without counters to check, a service that ignores `page` but links to `page + 1` each time
      // would be walked without end: the same items coming back is the sign. Ever-new items are a
      // legitimate (if endless) list, so the walk is bounded by repetition, never by a page count.
      if (repeatsItems(this.data, next.data)) {
        throw new ResponseValidationError(
          this.#endpoint,
          next.#status,
          { data: next.data, links: next.links, meta: next.meta },
          [
            {
              path: 'data',
              message: `page ${page} holds the same items (by id) as the page before it: the service (or a proxy before it) ignored the page parameter, so paging stopped rather than reading the same items again`,
            },
          ],
        );
      }
      return next;
    });
  }

  /** Every item of this page and the pages after it, fetched one page at a time. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page: Page<T> = this;
    for (;;) {
      yield* page.data;
      if (!page.hasNextPage() || page.data.length === 0) return;
      page = await page.getNextPage();
    }
  }

  #nextPageNumber(): number | undefined {
    const { meta, links } = this;
    if (typeof meta?.current_page === 'number' && typeof meta.last_page === 'number') {
      return meta.current_page < meta.last_page ? meta.current_page + 1 : undefined;
    }
    if (typeof links?.next === 'string') {
      // Only the page number is taken from the link: a URL from a response body is never requested.
      const page = Number(safeUrl(links.next)?.searchParams.get('page'));
      // A link back to this page or an earlier one would walk the same items forever.
      const current = typeof meta?.current_page === 'number' ? meta.current_page : requestedPage(this.#query);
      return Number.isInteger(page) && page > current ? page : undefined;
    }
    return undefined;
  }
}

/**
 * True when `next` holds exactly the items of `previous`, compared by their `id` (a string or a
 * number). Pages whose items have no such ids, and empty pages, are never called repeats.
 */
function repeatsItems(previous: readonly unknown[], next: readonly unknown[]): boolean {
  if (next.length === 0 || next.length !== previous.length) return false;
  const before = new Set<unknown>();
  for (const item of previous) {
    const id = itemId(item);
    if (id === undefined) return false;
    before.add(id);
  }
  return next.every((item) => {
    const id = itemId(item);
    return id !== undefined && before.has(id);
  });
}

function itemId(item: unknown): string | number | undefined {
  const id = isPlainObject(item) ? item['id'] : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The page number a query asked for: its `page` parameter, else 1 (the service's first page). */
function requestedPage(query: ListQuery): number {
  const page = Number(query['page'] ?? 1);
  return Number.isInteger(page) && page > 0 ? page : 1;
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text, 'http://placeholder.invalid');
  } catch {
    return undefined;
  }
}

/**
 * Reads a list body in any of the shapes the service may use: a bare array, `{ data: [...] }`,
 * Laravel's resource paginator `{ data, links, meta }`, or its plain paginator with the counters
 * at the top level (`current_page`, `last_page`, `next_page_url`...). Each item is validated.
 *
 * @internal for the resources: kept out of the declarations, which would otherwise reach the
 * transport's Node stream types from the main entry (a Worker project has no `@types/node`).
 */
export function pageFromResult<T>(
  result: ApiResult,
  itemSchema: Schema<T>,
  endpoint: string,
  query: ListQuery,
  fetchPage: (query: ListQuery) => Promise<Page<T>>,
): Page<T> {
  const { body } = result;
  let items: unknown[];
  let meta: PageMeta | null = null;
  let links: PageLinks | null = null;
  if (Array.isArray(body)) items = body;
  else if (isPlainObject(body) && Array.isArray(body['data'])) {
    items = body['data'];
    if (isPlainObject(body['meta'])) meta = body['meta'] as PageMeta;
    else if (typeof body['current_page'] === 'number') {
      const { data: _data, ...counters } = body;
      meta = counters as PageMeta;
    }
    if (isPlainObject(body['links'])) links = body['links'] as PageLinks;
    else if ('next_page_url' in body)
      links = { next: typeof body['next_page_url'] === 'string' ? body['next_page_url'] : null };
  } else {
    throw new ResponseValidationError(endpoint, result.status, body, [
      { path: '', message: 'expected an array, { data: [...] } or a paginator envelope' },
    ]);
  }
  const data = items.map((item, index) => {
    const parsed = itemSchema.safeParse(item);
    if (parsed.success) return parsed.data;
    throw new ResponseValidationError(endpoint, result.status, body, issuesFromZod(parsed.error, `data.${index}`));
  });
  return new Page(data, meta, links, query, fetchPage, endpoint, result.status);
}

/**
 * What `list()` returns: await it for the first page, or `for await` it for every item of every
 * page. Nothing is requested until you do one or the other, so an unused list never rejects unseen.
 *
 * @example
 * ```ts
 * for await (const log of client.messages.list()) console.log(log.id, log.delivery_status)
 * ```
 */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  readonly #load: () => APIPromise<Page<T>>;
  #promise: APIPromise<Page<T>> | undefined;

  /** Made by `list()`: `load` fetches the first page, once, when the result is first awaited or iterated. */
  constructor(load: () => APIPromise<Page<T>>) {
    this.#load = load;
  }

  /**
   * The first page with the answer it came from (status, headers, request id, rate limit).
   *
   * @example
   * ```ts
   * const { data: page, response } = await client.messages.list().withResponse()
   * console.log(page.data.length, response.rateLimit?.remaining)
   * ```
   */
  withResponse(): Promise<WithResponse<Page<T>>> {
    return this.#first().withResponse();
  }

  #first(): APIPromise<Page<T>> {
    this.#promise ??= this.#load();
    return this.#promise;
  }

  // biome-ignore lint/suspicious/noThenProperty: this object is meant to be awaited.
  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((page: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#first().then(onfulfilled, onrejected);
  }

  /** Like `Promise.prototype.catch`. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<T> | R> {
    return this.#first().catch(onrejected);
  }

  /** Like `Promise.prototype.finally`. */
  finally(onfinally?: (() => void) | null): Promise<Page<T>> {
    return this.#first().finally(onfinally);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    yield* await this.#first();
  }
}
