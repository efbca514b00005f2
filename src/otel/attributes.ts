import type { Attributes } from '@opentelemetry/api';
import type { RequestTrace } from '../types/diagnostics.js';

/**
 * Span names by endpoint table name: the method a caller wrote (`messages.send`), so a trace
 * reads like the code. A name missing here (an endpoint added later) is used as it is.
 */
const SPAN_NAMES: Readonly<Record<string, string>> = {
  me: 'client.me',
  subscription: 'client.subscription',
  usage: 'client.usage',
  listSenderNumbers: 'senderNumbers.list',
  lookupContact: 'contacts.lookup',
  sendMessage: 'messages.send',
  getMessage: 'messages.get',
  listMessages: 'messages.list',
  request: 'client.request',
};

/** The span name of a call of `endpoint`, e.g. `sendMessage` -> `messages.send`. */
export function spanNameOf(endpoint: string): string {
  return Object.hasOwn(SPAN_NAMES, endpoint) ? (SPAN_NAMES[endpoint] as string) : endpoint;
}

/**
 * `error.type` of a failure: the error's class name (`SendOutcomeUnknownError`), as the HTTP
 * semantic conventions ask; `_OTHER` for a thrown value that is not an Error, or one whose class
 * cannot be read (a Proxy whose traps throw must not stop the span from ending).
 */
export function errorTypeOf(error: unknown): string {
  try {
    if (error instanceof Error) {
      const name = error.constructor?.name;
      return typeof name === 'string' && name !== '' ? name : error.name;
    }
  } catch {
    // Fall through: the type is unknown, not a reason to lose the span.
  }
  return '_OTHER';
}

/** The message of a failure for the span status, or undefined when it cannot be read. */
export function errorMessageOf(error: unknown): string | undefined {
  try {
    return error instanceof Error && typeof error.message === 'string' ? error.message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `server.address` and `server.port` from the trace's `host[:port]` (`[::1]:8080` for IPv6,
 * whose address goes without brackets, as the semantic conventions write it).
 */
export function serverAttributes(serverAddress: string): Attributes {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(serverAddress);
  if (!match) return { 'server.address': serverAddress };
  const host = (match[1] ?? '').replace(/^\[(.*)\]$/, '$1');
  return match[2] === undefined
    ? { 'server.address': host }
    : { 'server.address': host, 'server.port': Number(match[2]) };
}

/** Whether the traced call failed: diagnostics_channel sets `error` (even to `undefined`) on rejection. */
export function failed(trace: RequestTrace): boolean {
  return Object.hasOwn(trace, 'error');
}

/**
 * The attributes that describe a call's outcome, shared by its span and its duration: the last
 * status when there was an answer, and the error's class when it failed.
 */
export function outcomeAttributes(trace: RequestTrace): Attributes {
  const attributes: Attributes = {};
  if (typeof trace.status === 'number') attributes['http.response.status_code'] = trace.status;
  if (failed(trace)) attributes['error.type'] = errorTypeOf(trace.error);
  return attributes;
}
