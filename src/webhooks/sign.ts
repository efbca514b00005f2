import { type Issue, ValidationError } from '../errors.js';
import { checkKnownKeys, type KnownKeys } from '../internal/values/checks.js';
import { describeValue } from '../internal/values/describe-value.js';
import { readFields } from '../internal/values/input.js';
import { toBase64 } from './base64.js';
import { checkSecret } from './secret.js';

/**
 * The three Standard Webhooks headers of one delivery. A type, not an interface, so that it can
 * be passed wherever headers are a record (`verifyWebhook`, `fetch`).
 *
 * @example
 * ```ts
 * { 'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', 'webhook-timestamp': '1764043200', 'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' }
 * ```
 */
export type WebhookSignatureHeaders = {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
};

/**
 * A `webhook-id` that travels unchanged in an HTTP header: printable ASCII, no space at either end
 * (fetch and Node refuse control characters and non-Latin-1 ones, and trim spaces: the receiver
 * would then sign other bytes).
 */
const HEADER_SAFE_ID = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const WHAT = 'Invalid signWebhook arguments';
const SIGN_OPTIONS: KnownKeys<Parameters<typeof signWebhook>[2]> = { id: true, timestamp: true };

/**
 * Signs a webhook body per Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` under the secret. The id must stay the same across retries of one event,
 * so receivers can drop duplicates. Works on any runtime with WebCrypto.
 *
 * Every argument is checked first: a body that is not a string, a secret that is not a `whsec_`
 * base64 secret, an id that cannot travel in a header as is, a timestamp that is not a valid
 * `Date`, or an unknown option is a `ValidationError` naming each, thrown before anything is signed.
 *
 * @example
 * ```ts
 * const headers = await signWebhook(JSON.stringify(event), secret, { id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' })
 * await fetch(url, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } })
 * ```
 */
export async function signWebhook(
  body: string,
  secret: string,
  options: {
    /**
     * The event's id, the same on every retry of it: 1 or more printable ASCII characters
     * (letters, digits, punctuation, spaces inside), with no space at either end, since it travels
     * in the `webhook-id` header as is.
     * @example 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W'
     */
    readonly id: string;
    /**
     * When it is signed: a valid `Date` (an Invalid Date, a number or a string is refused), sent as
     * whole seconds since 1970.
     * @default new Date()
     * @example new Date('2026-11-25T04:00:00Z')
     */
    readonly timestamp?: Date | undefined;
  },
): Promise<WebhookSignatureHeaders> {
  const problems = new ArgumentProblems(WHAT);
  if (typeof body !== 'string') {
    problems.issues.push({
      path: 'body',
      message: `must be the body to send, as a string (e.g. JSON.stringify(event)), got ${describeValue(body)}`,
    });
  }
  const key = checkSecret(secret, problems.issues);
  const fields = problems.readOptions(options, SIGN_OPTIONS, 'signWebhook', "{ id: 'msg_…' }");
  const id = fields?.id;
  if (fields && !(typeof id === 'string' && HEADER_SAFE_ID.test(id))) {
    problems.issues.push({
      path: 'id',
      message:
        'must be the event’s id, the same on every retry: printable ASCII with no space at either end (it travels ' +
        `in the webhook-id header as is), e.g. 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W'; got ${describeValue(id)}`,
    });
  }
  const ms = fields?.timestamp === undefined ? Date.now() : checkDate(fields.timestamp, 'timestamp', problems.issues);
  problems.throwIfAny();
  const seconds = Math.floor((ms as number) / 1000);
  return {
    'webhook-id': id as string,
    'webhook-timestamp': String(seconds),
    'webhook-signature': `v1,${await hmac(key as Uint8Array, `${id as string}.${seconds}.${body}`)}`,
  };
}

/** The base64 HMAC-SHA256 of `content` under a secret's key bytes (secret.ts). */
export async function hmac(secret: Uint8Array, content: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', secret as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return toBase64(new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(content))));
}

/**
 * The problems found in one call's arguments (`signWebhook`'s, `verifyWebhook`'s), all reported at
 * once in one ValidationError, before anything is signed or verified; with, as its `cause`, the
 * first error a caller's getter or Proxy trap threw while they were read.
 */
export class ArgumentProblems {
  readonly issues: Issue[] = [];
  private cause: unknown;

  constructor(private readonly what: string) {}

  /** Records what a caller's getter or trap threw, reading `path`. */
  threw(path: string, error: unknown): void {
    this.issues.push({ path, message: 'could not be read: reading it threw (see cause)' });
    this.cause ??= error;
  }

  /**
   * The options object as read once (a copy: a getter is not read again), its unknown keys refused;
   * or undefined after an issue when it is not an object (`null`, an array, a primitive).
   */
  readOptions(given: unknown, known: object, where: string, example: string): Record<string, unknown> | undefined {
    let fields: Record<string, unknown>;
    try {
      fields = readFields(given, this.what, example);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const issue of error.issues) this.issues.push({ path: 'options', message: issue.message });
      this.cause ??= error.cause;
      return undefined;
    }
    checkKnownKeys(fields, known, ` of ${where}`, this.issues);
    return fields;
  }

  throwIfAny(): void {
    if (this.issues.length === 0) return;
    throw new ValidationError(this.what, this.issues, this.cause === undefined ? undefined : { cause: this.cause });
  }
}

/**
 * A Date's time in ms, or undefined after an issue: only a real, valid `Date` is one (an Invalid
 * Date, a number, a string, a Proxy or an object with a `getTime` of its own is not). Read through
 * `Date.prototype.getTime`, so a subclass's override cannot answer something else later.
 */
export function checkDate(value: unknown, path: string, issues: Issue[]): number | undefined {
  let ms = Number.NaN;
  try {
    ms = Date.prototype.getTime.call(value as Date);
  } catch {
    // Not a Date: refused below.
  }
  if (Number.isFinite(ms)) return ms;
  issues.push({
    path,
    message: `must be a valid Date, e.g. new Date() (leave it out for the current time), got ${describeValue(value)}`,
  });
  return undefined;
}
