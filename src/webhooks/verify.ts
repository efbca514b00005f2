import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './event.js';
import { secretKey } from './secret.js';
import { hmac } from './sign.js';

/** Headers as a `Headers` object, or as Node and most frameworks give them (names in any case). */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Options of `verifyWebhook`. */
export interface VerifyWebhookOptions {
  /**
   * Seconds a signature stays valid, either side of now: older ones are replays.
   * @default 300 (Standard Webhooks' five minutes)
   */
  readonly tolerance?: number | undefined;
  /**
   * The time to check against.
   * @default new Date()
   */
  readonly now?: Date | undefined;
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
 * Throws `WebhookVerificationError` with a `reason` when the webhook must be refused, and
 * `ValidationError` for a secret that is not a `whsec_` base64 secret.
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
  // A bad secret is the caller's mistake: said before the request is judged.
  const key = secretKey(secret);
  const id = header(headers, 'webhook-id');
  const signatures = header(headers, 'webhook-signature');
  const stamp = header(headers, 'webhook-timestamp');
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
  const tolerance = options.tolerance ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (now - timestamp > tolerance) {
    throw new WebhookVerificationError(
      'stale-timestamp',
      `The webhook was signed ${now - timestamp} s ago, more than the tolerance of ${tolerance} s: a replay, or a sender's clock far behind.`,
    );
  }
  if (timestamp > now + tolerance) {
    throw new WebhookVerificationError(
      'future-timestamp',
      `The webhook was signed ${timestamp - now} s in the future, more than the tolerance of ${tolerance} s: a sender's clock far ahead.`,
    );
  }
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
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

/** One header's value, by its lower-case name, whatever shape the headers come in. */
function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(', ') : (value as string | undefined);
  }
  return undefined;
}

/** Whether two strings are equal, in a time that depends only on their lengths. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
