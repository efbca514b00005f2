import type { MessageLog } from '../types/message-log.js';

/** The event types, one per status an update reports (the fleet's updates). */
export const WEBHOOK_EVENT_TYPES = [
  'message.sent',
  'message.failed',
  'message.unknown',
  'message.delivered',
  'message.read',
  'message.delivery-timeout',
  'message.scheduled',
  'message.quiet-hours',
  'message.rate-limited',
  'message.cancelled',
] as const;

/** The statuses a delivery webhook reports: the fleet's updates, one event type each. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * One delivery webhook's JSON body (README, "Delivery webhooks", has its JSON Schema).
 *
 * @example
 * ```ts
 * const event = await verifyWebhook(body, headers, secret)
 * if (event.type === 'message.read') await markRead(event.data.id)
 * ```
 */
export interface WebhookEvent {
  /** What happened, e.g. `message.delivered`. */
  readonly type: WebhookEventType | (string & {});
  /** When it happened (ISO 8601, UTC). */
  readonly timestamp: string;
  readonly data: {
    /** The message's business id: the one given to the outbox (`queue.send(params, { id })`). */
    readonly id: string;
    /** The message log's id, once the service stored it. */
    readonly log_id?: number;
    /**
     * The status it reached: `sent`, `failed`, `unknown`, `delivered`, `read` or `delivery-timeout`;
     * or why it waits: `scheduled`, `quiet-hours`, `rate-limited` (each with `until`) or `cancelled`.
     */
    readonly status: string;
    /** For `scheduled`, `quiet-hours` and `rate-limited`: when the message may go (ISO 8601, UTC). */
    readonly until?: string;
    /** The message log as last read, when known. */
    readonly log?: MessageLog;
    /** For `failed` and `unknown`: the error's name and message. */
    readonly error?: { readonly name: string; readonly message: string };
  };
}
