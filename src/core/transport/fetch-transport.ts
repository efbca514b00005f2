import { MessagingError, ValidationError } from '../../errors.js';
import type { FetchLike } from '../../types/options.js';
import {
  DeadlineExceededError,
  NeverSentError,
  readBodyText,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

/** A transport over any fetch-shaped function: msw, an in-process fake, another runtime's fetch. */
export class FetchTransport implements Transport {
  readonly #fetch: FetchLike;

  constructor(fetchImpl: FetchLike) {
    this.#fetch = fetchImpl;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DeadlineExceededError(req.timeout)), req.timeout);
    try {
      return await this.#exchange(req, req.signal ? AbortSignal.any([req.signal, deadline.signal]) : deadline.signal);
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.signal.reason;
      // fetch reports a failed request body as TypeError('fetch failed') caused by the body's
      // error: an SDK error raised by the body (a media source that failed) comes out as is.
      throw error instanceof TypeError && error.cause instanceof MessagingError ? error.cause : error;
    } finally {
      clearTimeout(timer);
    }
  }

  async #exchange(req: TransportRequest, signal: AbortSignal): Promise<TransportResponse> {
    const init: RequestInit & { duplex?: 'half' } = {
      method: req.method,
      headers: req.headers,
      signal,
      // Never follow a redirect: it would carry X-Api-Key to wherever the Location points.
      redirect: 'manual',
    };
    if (typeof req.body === 'string') init.body = req.body;
    else if (req.body) {
      let body = webStreamOf(req.body);
      // fetch has no "bytes sent" hook: count as fetch pulls the body, the closest it offers.
      const onBytes = req.onBodyBytes;
      if (onBytes) {
        body = body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              onBytes(chunk.byteLength);
              controller.enqueue(chunk);
            },
          }),
        );
      }
      init.body = body;
      init.duplex = 'half';
    }
    let pending: Promise<Response>;
    // Called unbound, as a plain function: a runtime's own fetch may refuse any other `this`
    // (Cloudflare Workers throw "Illegal invocation" when it is called as a method).
    const fetchImpl = this.#fetch;
    try {
      pending = fetchImpl(req.url, init);
    } catch (error) {
      // A fetch that throws when called has not started the request.
      throw new NeverSentError(error);
    }
    const response = await pending;
    // A fetch that ignored `redirect: 'manual'` answered from wherever the Location pointed: that
    // body is not the tenant's, so it is refused rather than returned as the API's answer.
    if (response.redirected) {
      void response.body?.cancel().catch(() => undefined);
      throw new ValidationError(
        'The fetch option followed a redirect',
        [
          {
            path: 'fetch',
            message: `it followed a redirect from ${new URL(req.url).origin} although the SDK asked for none (redirect: 'manual'). Pass a fetch that honours redirect: 'manual', so your API key only goes to the base URL's origin.`,
          },
        ],
        { code: 'validation.options', mayHaveBeenSent: true },
      );
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = response.body;
    const text = body
      ? await readBodyText(body, response.status, headers, () => void body.cancel().catch(() => undefined))
      : '';
    return { status: response.status, headers, text };
  }

  async close(): Promise<void> {}
}

/**
 * A request body (a Node `Readable`, or the async iterable the Workers build makes instead) as
 * the web stream fetch takes, read as fetch pulls it; a cancelled request ends the source.
 * Neither `Readable.toWeb` nor `ReadableStream.from`: a Worker without `nodejs_compat` has the
 * first in no form, and older runtimes lack the second.
 */
function webStreamOf(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel(reason) {
        await chunks.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
