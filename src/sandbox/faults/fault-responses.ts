import { errorResponse } from '../http/laravel.js';
import type { FaultRule } from './faults.js';

/**
 * Responses that stand for "the connection was dropped". A web `Response` cannot express that,
 * so each adapter checks this mark and does its own thing: the server destroys the socket, the
 * in-process fetch rejects like a reset connection, msw answers `Response.error()`.
 */
const DROPPED = new WeakSet<Response>();

/** A response meaning "destroy the connection". */
function dropResponse(): Response {
  const response = new Response(null, { status: 599 });
  DROPPED.add(response);
  return response;
}

/** True when the adapter should drop the connection instead of answering. */
export function dropped(response: Response): boolean {
  return DROPPED.has(response);
}

/** Laravel's messages for server errors in production (no stack trace). */
function serverError(status: number): Response {
  const message = status === 503 ? 'Service Unavailable' : status === 502 ? 'Bad Gateway' : 'Server Error';
  return errorResponse(status, message);
}

/** What a proxy in front of the API sends when the app behind it is down. */
function htmlErrorPage(): Response {
  const html =
    '<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n' +
    '<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n';
  return new Response(html, { status: 502, headers: { 'content-type': 'text/html; charset=utf-8' } });
}

/** The dropped connection or 5xx of a `drop` or `status` fault timed `when`, if it is one. */
function timedFault(fault: FaultRule, when: 'before' | 'after'): Response | undefined {
  if ((fault.when ?? 'before') !== when) return undefined;
  if (fault.kind === 'drop') return dropResponse();
  if (fault.kind === 'status') return serverError(fault.status ?? 503);
  return undefined;
}

/** The response of a fault that fires before the request is processed, if any. */
export function faultResponse(fired: readonly FaultRule[]): Response | undefined {
  for (const fault of fired) {
    if (fault.kind === 'html') return htmlErrorPage();
    const response = timedFault(fault, 'before');
    if (response) return response;
  }
  return undefined;
}

/**
 * Applies the faults that fire after the request was processed: its side effects (a stored
 * send) have happened, but the client does not get a usable answer.
 */
export async function applyAfterFaults(
  fired: readonly FaultRule[],
  response: Response,
  signal?: AbortSignal,
): Promise<Response> {
  for (const fault of fired) {
    // The side effects are done (a send is stored); only the answer goes missing.
    if (fault.kind === 'lost-answer') return dropResponse();
    const timed = timedFault(fault, 'after');
    if (timed) return timed;
    if (fault.kind === 'stall') return stalledResponse(response, signal);
    if (fault.kind === 'huge') return hugeResponse(fault.hugeBytes ?? 64 * 1024 * 1024);
  }
  const mangle = fired.find((f) => f.kind === 'truncated' || f.kind === 'malformed');
  if (!mangle) return response;
  const text = await response.text();
  const body =
    mangle.kind === 'truncated'
      ? text.slice(0, Math.floor(text.length / 2))
      : // A stray byte before the JSON, as a misbehaving PHP include or debug echo leaves behind.
        `\u0000${text.replace(/"/, "'")}`;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(body, { status: response.status, headers });
}

/** The headers and half the body, then nothing until the client gives up (its signal aborts). */
async function stalledResponse(response: Response, signal: AbortSignal | undefined): Promise<Response> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.subarray(0, Math.floor(bytes.length / 2)));
      const close = () => controller.close();
      if (signal?.aborted) close();
      else signal?.addEventListener('abort', close, { once: true });
    },
  });
  const headers = new Headers(response.headers);
  headers.set('content-length', String(bytes.length));
  return new Response(body, { status: response.status, headers });
}

/** A valid but enormous JSON body, streamed in 1 MiB chunks so the sandbox itself stays small. */
function hugeResponse(size: number): Response {
  const chunk = new TextEncoder().encode('x'.repeat(1024 * 1024));
  const head = new TextEncoder().encode('{"data":{"padding":"');
  const tail = new TextEncoder().encode('"}}');
  let left = Math.max(0, size - head.length - tail.length);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head);
    },
    pull(controller) {
      if (left <= 0) {
        controller.enqueue(tail);
        controller.close();
        return;
      }
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      controller.enqueue(part);
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'application/json', 'content-length': String(size) },
  });
}
