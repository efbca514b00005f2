import type { ConnectionErrorCode } from '../../connection-errors.js';
import { describeValue } from '../values/describe-value.js';

/**
 * Error codes meaning the connection was never established, so not one byte of the request
 * reached the service. Only these make a non-idempotent request (a send) safe to retry.
 */
const NOT_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_PRX_CONN', // undici: the socket to the proxy failed before its CONNECT completed
  'TM_PROXY_TUNNEL_REFUSED', // the undici transport: the proxy refused the CONNECT (src/core/transport/proxy.ts)
]);

/**
 * Codes of undici refusing a request's own arguments before dispatching it: nothing was sent,
 * and sending it again would fail the same way.
 */
const REFUSED_ARGUMENT_CODES = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED']);

/** True when the HTTP client refused the request as given (a bad argument): not a network failure. */
export function refusedByHttpClient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && REFUSED_ARGUMENT_CODES.has(code);
}

/** Walks an error's `cause` chain (undici and fetch wrap the socket error) and collects `code`s. */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    const nested = (current as { errors?: unknown }).errors;
    if (Array.isArray(nested)) for (const inner of nested) codes.push(...errorCodes(inner));
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * Deno's fetch carries no error code: its HTTP client (hyper) names the phase that failed in the
 * message, and `client error (Connect)` is the connection (DNS, refused, unreachable, TLS
 * handshake): the request was not written.
 */
const CONNECT_PHASE = /\bclient error \(Connect\)/;

/** True when the failure certainly happened before the request could reach the service. */
export function failedBeforeConnecting(error: unknown): boolean {
  if (errorCodes(error).some((code) => NOT_CONNECTED_CODES.has(code))) return true;
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECT_PHASE.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** A short description of a network failure for an error message, e.g. `ECONNREFUSED`. */
export function describeNetworkError(error: unknown): string {
  const codes = errorCodes(error);
  const message = error instanceof Error ? error.message : describeValue(error);
  return codes.length > 0 ? `${codes[codes.length - 1]}: ${message}` : message;
}

/** The codes of the network's errors by what they mean (undici's, Node's, and the TLS layer's). */
const CODE_OF: readonly (readonly [ConnectionErrorCode, RegExp])[] = [
  ['network.refused', /^(ECONNREFUSED|TM_PROXY_TUNNEL_REFUSED)$/],
  ['network.dns', /^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)$/],
  ['network.unreachable', /^(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|UND_ERR_CONNECT_TIMEOUT|ETIMEDOUT)$/],
  ['network.tls', /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)|_CERT|^EPROTO$/],
  ['network.reset', /^(ECONNRESET|EPIPE|ECONNABORTED|UND_ERR_SOCKET|UND_ERR_CLOSED|UND_ERR_ABORTED)$/],
];

/**
 * What a network failure was, in a word: the innermost code of the cause chain that names one
 * (`ECONNREFUSED` is `network.refused`), else `network.failed`.
 *
 * @example connectionCode(Object.assign(new Error('x'), { code: 'ENOTFOUND' })) // 'network.dns'
 */
export function connectionCode(error: unknown): ConnectionErrorCode {
  const codes = errorCodes(error).reverse();
  for (const code of codes) for (const [name, pattern] of CODE_OF) if (pattern.test(code)) return name;
  return 'network.failed';
}
