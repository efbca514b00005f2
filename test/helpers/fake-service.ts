/**
 * A service in process for the unit tier: a fetch function (`fetch: service.fetch` of
 * `new MessagingClient`) that answers each request with the test's handler and records it with
 * its arrival time on the fake clock. What the real HTTP path does with the same answers is
 * tested on loopback by test/helpers/server.ts's `startServer` (test/integration/).
 */
import { fakeNow } from './fake-clock.js';

/** A request as the fake service received it. */
export interface FakeRequest {
  readonly method: string;
  /** The path and query, `/api/v1/messages/42`. */
  readonly url: string;
  readonly headers: Headers;
  readonly body: string;
  /** When it arrived, on the fake clock (ms since the epoch). */
  readonly at: number;
  /** The request's signal: a handler that never answers ends when it aborts (`hang`). */
  readonly signal: AbortSignal | undefined;
}

/** Answers the request numbered `index` (from 0). */
export type FakeHandler = (request: FakeRequest, index: number) => Response | Promise<Response>;

export interface FakeService {
  readonly requests: FakeRequest[];
  /** The arrival times of every request, in order. */
  times(): number[];
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
}

/** A fake service answering with `handler`; needs `vi.useFakeTimers()` (arrival times are fake). */
export function fakeService(handler: FakeHandler): FakeService {
  const requests: FakeRequest[] = [];
  return {
    requests,
    times: () => requests.map(({ at }) => at),
    async fetch(input, init) {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const body = typeof init?.body === 'string' ? init.body : init?.body ? await new Response(init.body).text() : '';
      const request: FakeRequest = {
        method: init?.method ?? 'GET',
        url: url.pathname + url.search,
        headers: new Headers(init?.headers),
        body,
        at: fakeNow(),
        signal: init?.signal ?? undefined,
      };
      requests.push(request);
      return handler(request, requests.length - 1);
    },
  };
}

/** A JSON answer, as the test server's `json` writes one. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers });
}

/** The connection dropped with no answer, as fetch reports it. */
export function dropped(): Promise<Response> {
  const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  return Promise.reject(new TypeError('fetch failed', { cause: reset }));
}

/** No answer ever: ends only when the request's signal aborts (its deadline, the caller's signal). */
export function hang(request: FakeRequest): Promise<Response> {
  return new Promise((_resolve, reject) => {
    const { signal } = request;
    if (!signal) return;
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

export { messageLog } from './message-log.js';
