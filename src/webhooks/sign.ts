import { toBase64 } from './base64.js';
import { secretKey } from './secret.js';

/**
 * The three Standard Webhooks headers of one delivery. A type, not an interface, so that it can
 * be passed wherever headers are a record (`verifyWebhook`, `fetch`).
 */
export type WebhookSignatureHeaders = {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
};

/**
 * Signs a webhook body per Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` under the secret. The id must stay the same across retries of one event,
 * so receivers can drop duplicates. Works on any runtime with WebCrypto.
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
  { id, timestamp = new Date() }: { readonly id: string; readonly timestamp?: Date },
): Promise<WebhookSignatureHeaders> {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': `v1,${await hmac(secretKey(secret), `${id}.${seconds}.${body}`)}`,
  };
}

/** The base64 HMAC-SHA256 of `content` under a secret's key bytes (secret.ts). */
export async function hmac(secret: Uint8Array, content: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', secret as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return toBase64(new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(content))));
}
