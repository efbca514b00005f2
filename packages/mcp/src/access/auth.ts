/**
 * The door of `--http`: every request carries `Authorization: Bearer` with the token of
 * `TENANT_MESSAGING_MCP_TOKEN`, compared in constant time (both sides hashed to the same length
 * first, so neither the token's characters nor its length show in the timing), and comes from a
 * loopback name (a page that rebinds its DNS name to 127.0.0.1 still sends its own name as Host).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * True for a loopback host: `localhost`, any `127.x.y.z`, `[::1]`. Names under `.localhost` are
 * not among them: the resolver may answer any address for them.
 *
 * @example
 * ```ts
 * isLoopback('127.0.0.1') // true
 * ```
 */
export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * A check of the bearer token of `expected`: true only for a request that carries it.
 *
 * @example
 * ```ts
 * const allowed = bearerCheck(process.env.TENANT_MESSAGING_MCP_TOKEN)
 * if (!allowed(req.headers.authorization)) reply(401)
 * ```
 */
export function bearerCheck(expected: string): (authorization: string | undefined) => boolean {
  const wanted = digest(expected);
  return (authorization) => {
    const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
    // A missing header is hashed too: every refusal takes the same time.
    return timingSafeEqual(digest(match?.[1] ?? ''), wanted) && match !== null;
  };
}

/**
 * True when the request names a loopback host (`Host`) and, if it says where it comes from
 * (`Origin`, sent by browsers), a loopback origin.
 *
 * @example
 * ```ts
 * if (!fromLoopback(req)) reply(403)
 * ```
 */
export function fromLoopback(req: IncomingMessage): boolean {
  const host = URL.parse(`http://${req.headers.host ?? ''}`)?.hostname;
  if (host === undefined || !isLoopback(host)) return false;
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return origin === undefined;
  const from = URL.parse(origin)?.hostname;
  return from !== undefined && isLoopback(from);
}
