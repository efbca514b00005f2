/**
 * tenant-messaging/webhooks: Standard Webhooks signatures for the SDK's delivery webhooks. Light,
 * with no optional peer: it runs on Node, Bun, Deno and Cloudflare Workers (WebCrypto only).
 *
 * @example
 * ```ts
 * import { verifyWebhook } from 'tenant-messaging/webhooks'
 * const event = await verifyWebhook(rawBody, request.headers, env.WEBHOOK_SECRET)
 * ```
 *
 * @packageDocumentation
 */

export type { WebhookEndpoint } from './endpoints.js';
export { type WebhookRefusal, WebhookVerificationError } from './errors.js';
export type { WebhookEvent, WebhookEventType } from './event.js';
export type { FleetUpdate } from './events-of.js';
export { type RelaySummary, type RelayWebhooksOptions, relayWebhooks, type WebhookAttempt } from './relay.js';
export { signWebhook, type WebhookSignatureHeaders } from './sign.js';
export { type VerifyWebhookOptions, verifyWebhook, type WebhookHeaders } from './verify.js';
