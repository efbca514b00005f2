import type { Issue } from '../errors.js';
import type { KnownKeys } from '../internal/values/checks.js';
import { describeValue } from '../internal/values/describe-value.js';
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './event.js';
import { checkSecret } from './secret.js';
import { ArgumentProblems, checkDate, hmac } from './sign.js';

/**
 * The request's headers: a `Headers` object (or anything with a `get(name)`), or a record as Node
 * and most frameworks give them (names in any case, a value a string or an array of strings).
 * Never `null`, an array or a primitive: those are a `ValidationError`.
 *
 * @example
 * ```ts
 * await verifyWebhook(await request.text(), request.headers, secret) // a Headers object
 * await verifyWebhook(req.body, req.headers, secret) // Node's IncomingHttpHeaders
 * ```
 */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The default of `tolerance`, in seconds: Standard Webhooks' five minutes. */
const DEFAULT_TOLERANCE = 300;
/**
 * The largest `tolerance`, in seconds: a day, past any clock skew (time zones included). A larger
 * one would let a signature captured long ago be replayed, which no option may allow.
 */
const MAX_TOLERANCE = 86_400;

/**
 * Options of `verifyWebhook`. Each is checked before the request is looked at: a value outside its
 * domain, or an unknown key, is a `ValidationError`. No value turns the replay check off.
 *
 * @example
 * ```ts
 * { tolerance: 60, now: new Date() }
 * ```
 */
export interface VerifyWebhookOptions {
  /**
   * Seconds a signature stays valid, either side of now: older ones are replays. A number from 0
   * to 86400 (a day); NaN, Infinity, a negative number, a larger one or a numeric string is refused.
   * @default 300 (Standard Webhooks' five minutes)
   * @example 60
   */
  readonly tolerance?: number | undefined;
  /**
   * The time to check against: a valid `Date` (an Invalid Date, a number or a string is refused).
   * @default new Date()
   * @example new Date('2026-11-25T04:00:00Z')
   */
  readonly now?: Date | undefined;
}

const WHAT = 'Invalid verifyWebhook arguments';
const VERIFY_OPTIONS: KnownKeys<VerifyWebhookOptions> = { tolerance: true, now: true };
/** The headers verifyWebhook reads, by the names it knows them by. */
const NAMES = { id: 'webhook-id', signatures: 'webhook-signature', stamp: 'webhook-timestamp' } as const;
type SignedHeaders = { [K in keyof typeof NAMES]: string | undefined };

/** What verifyWebhook works from, once every argument has been checked. */
interface Checked {
  readonly text: string;
  readonly headers: SignedHeaders;
  readonly key: Uint8Array;
  readonly tolerance: number;
  /** Now, in whole seconds since 1970. */
  readonly now: number;
}

/**
 * Verifies a delivery webhook per Standard Webhooks and returns its event: the `v1` HMAC-SHA256
 * of `id.timestamp.body` under the secret, in any of the signatures of `webhook-signature` (so a
 * secret can be rotated), signed within `tolerance` of now. Works on any runtime with WebCrypto
 * (Node, Bun, Deno, Workers); it agrees with the reference `standardwebhooks` package on every
 * input (a property test holds it to it), and compares in constant time.
 *
 * Pass the body exactly as it arrived: the raw bytes or text, never a parsed-then-stringified
 * object, whose bytes differ and fail the signature (README: "the raw-body pitfall").
 *
 * Every argument is checked first, before any header or signature is judged: a body that is not a
 * string or a Uint8Array, headers that are not a `Headers` object or a record, a secret that is not
 * a `whsec_` base64 secret, an option outside its domain (see `VerifyWebhookOptions`) or an unknown
 * option is a `ValidationError` naming each. Then it throws `WebhookVerificationError` with a
 * `reason` when the webhook must be refused.
 *
 * @example
 * ```ts
 * app.post('/hooks', express.raw({ type: 'application/json' }), async (req, res) => {
 *   const event = await verifyWebhook(req.body, req.headers, process.env.WEBHOOK_SECRET)
 *   res.sendStatus(204)
 * })
 * ```
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const { text, headers: given, key, tolerance, now } = checkArguments(body, headers, secret, options);
  const { id, signatures, stamp } = given;
  if (!id || !signatures || !stamp) {
    throw new WebhookVerificationError(
      'missing-header',
      'The webhook lacks webhook-id, webhook-timestamp or webhook-signature: it was not signed per Standard Webhooks.',
    );
  }
  // Read as the reference reads it (parseInt), and signed as the number it gives.
  const timestamp = Number.parseInt(stamp, 10);
  if (Number.isNaN(timestamp)) {
    throw new WebhookVerificationError('malformed-header', 'The webhook-timestamp header is not a number of seconds.');
  }
  // Written so that acceptance needs a true comparison: were a NaN ever to reach them, both refuse.
  if (!(now - timestamp <= tolerance)) {
    throw new WebhookVerificationError(
      'stale-timestamp',
      `The webhook was signed ${now - timestamp} s ago, more than the tolerance of ${tolerance} s: a replay, or a sender's clock far behind.`,
    );
  }
  if (!(timestamp <= now + tolerance)) {
    throw new WebhookVerificationError(
      'future-timestamp',
      `The webhook was signed ${timestamp - now} s in the future, more than the tolerance of ${tolerance} s: a sender's clock far ahead.`,
    );
  }
  const expected = await hmac(key, `${id}.${timestamp}.${text}`);
  let matched = false;
  for (const versioned of signatures.split(' ')) {
    const [version, signature] = versioned.split(',');
    // Every candidate is compared in full: the time taken says nothing about which one matched.
    if (version === 'v1' && signature !== undefined && sameText(signature, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookVerificationError(
      'bad-signature',
      'No v1 signature of the webhook matches its body with this secret: the body was changed (or re-serialised: verify the raw body), or the secret is not the endpoint’s.',
    );
  }
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('bad-body', 'The webhook is signed, but its body is not JSON.');
  }
}

/**
 * Every argument checked, all problems in one ValidationError: nothing of the request is judged
 * before the caller's own values are known to be usable (a NaN tolerance or an Invalid Date would
 * make every comparison false, and the replay check with it).
 */
function checkArguments(body: unknown, headers: unknown, secret: unknown, options: unknown): Checked {
  const problems = new ArgumentProblems(WHAT);
  const text = bodyText(body, problems.issues);
  const read = readHeaders(headers, problems);
  const key = checkSecret(secret, problems.issues);
  const fields = problems.readOptions(options, VERIFY_OPTIONS, 'verifyWebhook', '{ tolerance: 300 }') ?? {};
  const tolerance = checkTolerance(fields.tolerance, problems.issues);
  const nowMs = fields.now === undefined ? Date.now() : checkDate(fields.now, 'now', problems.issues);
  problems.throwIfAny();
  return {
    text: text as string,
    headers: read as SignedHeaders,
    key: key as Uint8Array,
    tolerance: tolerance as number,
    now: Math.floor((nowMs as number) / 1000),
  };
}

/** The body as text: a string as is, a Uint8Array (a Buffer) decoded as UTF-8; anything else an issue. */
function bodyText(body: unknown, issues: Issue[]): string | undefined {
  if (typeof body === 'string') return body;
  if (isUint8Array(body)) return new TextDecoder().decode(body);
  issues.push({
    path: 'body',
    message:
      'must be the raw body as it arrived: a string or a Uint8Array (a Buffer), never a parsed object, whose bytes ' +
      `differ from the signed ones (use express.raw or request.text()); got ${describeValue(body)}`,
  });
  return undefined;
}

/** %TypedArray%'s own name getter: a Uint8Array's internal name, from any realm; undefined for anything else. */
const typedArrayName = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)
  ?.get as ((this: unknown) => string | undefined) | undefined;
const isUint8Array = (value: unknown): value is Uint8Array => typedArrayName?.call(value) === 'Uint8Array';

/** `tolerance`, or its default; an issue for anything but a number of seconds from 0 to MAX_TOLERANCE. */
function checkTolerance(value: unknown, issues: Issue[]): number | undefined {
  if (value === undefined) return DEFAULT_TOLERANCE;
  // NaN fails both comparisons; -0 passes, and is 0.
  if (typeof value === 'number' && value >= 0 && value <= MAX_TOLERANCE) return value + 0;
  issues.push({
    path: 'tolerance',
    message:
      `must be a number of seconds from 0 to ${MAX_TOLERANCE} (leave it out for ${DEFAULT_TOLERANCE}): a signature ` +
      `further than that from now is refused as a replay, and no value turns that off; got ${describeValue(value)}`,
  });
  return undefined;
}

/**
 * The three headers verifyWebhook reads, whatever shape the headers come in, each read once; an
 * issue for headers that are not an object, a value that is not a string (or an array of them),
 * and a getter or `get` that throws.
 */
function readHeaders(headers: unknown, problems: ArgumentProblems): SignedHeaders | undefined {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    problems.issues.push({
      path: 'headers',
      message: `must be the request’s headers: a Headers object, or a record of names to values such as Node’s req.headers; got ${describeValue(headers)}`,
    });
    return undefined;
  }
  let raw: Record<keyof SignedHeaders, unknown>;
  try {
    raw = rawHeaders(headers);
  } catch (error) {
    problems.threw('headers', error);
    return undefined;
  }
  const read: Partial<Record<keyof SignedHeaders, string>> = {};
  for (const [field, name] of Object.entries(NAMES) as [keyof SignedHeaders, string][]) {
    const value = raw[field];
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') read[field] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) read[field] = value.join(', ');
    else {
      problems.issues.push({
        path: `headers.${name}`,
        message: `must be a string or an array of strings, got ${describeValue(value)}`,
      });
    }
  }
  return { id: read.id, signatures: read.signatures, stamp: read.stamp };
}

/** The values of the three headers as given: by `get`, or by name in any case from a record (the first one). */
function rawHeaders(headers: object): Record<keyof SignedHeaders, unknown> {
  const get: unknown = (headers as { get?: unknown }).get;
  const found = new Map<string, unknown>();
  if (typeof get === 'function') {
    for (const name of Object.values(NAMES)) found.set(name, get.call(headers, name));
  } else {
    const wanted: readonly string[] = Object.values(NAMES);
    for (const key of Object.keys(headers)) {
      const name = key.toLowerCase();
      if (wanted.includes(name) && !found.has(name)) found.set(name, (headers as Record<string, unknown>)[key]);
    }
  }
  return { id: found.get(NAMES.id), signatures: found.get(NAMES.signatures), stamp: found.get(NAMES.stamp) };
}

/** Whether two strings are equal, in a time that depends only on their lengths. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
