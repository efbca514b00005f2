import type { DeliveryUpdate } from '../types/many.js';
import type { MessageLog } from '../types/message-log.js';
import type { WebhookEvent } from './event.js';

/**
 * An update of the fleet's queue (`queue.updates()` in `tenant-messaging/bullmq`), as the relays
 * read it. Declared here, by shape, so that this light entry never refers to BullMQ's types.
 */
export interface FleetUpdate {
  /** The business id (the queue's job id). */
  readonly id: string;
  readonly status: string;
  readonly log?: MessageLog | undefined;
  readonly error?: { readonly name: string; readonly message: string } | undefined;
  /** The event's id in the queue's event log (on Redis `<ms>-<seq>`, on PostgreSQL a sequence number). */
  readonly eventId: string;
  /** When the worker published it (ISO 8601). */
  readonly at?: string | undefined;
  /** For `scheduled` and `quiet-hours`: when the message may go (ISO 8601). */
  readonly until?: string | undefined;
}

/** An event ready to sign: its body and its `webhook-id`, the same on every attempt. */
export interface OutgoingEvent {
  readonly webhookId: string;
  readonly type: string;
  readonly body: string;
}

/**
 * The event of an update, or undefined for a one-process update that says a log cannot be
 * tracked (`status: 'failed'` with an `error`: a 404 or a 403 on a poll, not a message's status).
 */
export function eventOf(update: DeliveryUpdate | FleetUpdate): OutgoingEvent | undefined {
  return 'eventId' in update ? fleetEvent(update) : deliveryEvent(update);
}

/**
 * A fleet update's event. Its `webhook-id` is `msg_<business id>_<log id or ->_<status>`: the same
 * whenever the same change is relayed again (a worker re-publishing after a crash, a relay reading
 * its log again after one), and a new one when `queue.resend(id)` makes a new log. Its timestamp is
 * the update's own, so it too is the same on every relay of it.
 */
export function fleetEvent(update: FleetUpdate): OutgoingEvent {
  const event: WebhookEvent = {
    type: `message.${update.status}`,
    timestamp: occurredAt(update),
    data: {
      id: update.id,
      ...(update.log ? { log_id: update.log.id } : {}),
      status: update.status,
      ...(update.until ? { until: update.until } : {}),
      ...(update.log ? { log: update.log } : {}),
      ...(update.error ? { error: { name: update.error.name, message: update.error.message } } : {}),
    },
  };
  // encodeURIComponent: a business id may hold any character but `:`; a header may not.
  // A message may wait twice for the same reason (quiet hours on two nights): its `until` tells them
  // apart. A cancel frees its id, so a later send of that id may be cancelled too: its time does.
  const when = update.until ?? (update.status === 'cancelled' ? update.at : undefined);
  const until = when ? `_${Date.parse(when)}` : '';
  const webhookId = `msg_${encodeURIComponent(update.id)}_${update.log?.id ?? '-'}_${update.status}${until}`;
  return { webhookId, type: event.type, body: JSON.stringify(event) };
}

/**
 * When a fleet update happened, the same on every relay of it: its `at`, or for an update published
 * before updates carried one, the time in a Redis stream id; never the reader's clock unless neither.
 */
function occurredAt(update: FleetUpdate): string {
  const at = update.at === undefined ? Number.NaN : Date.parse(update.at);
  if (Number.isFinite(at)) return new Date(at).toISOString();
  const streamMs = /^(\d+)-\d+$/.exec(update.eventId)?.[1];
  return new Date(streamMs === undefined ? Date.now() : Number(streamMs)).toISOString();
}

/** A one-process update's event (`trackDeliveries`): it knows log ids only, so `data.id` is the log id. */
function deliveryEvent(update: DeliveryUpdate): OutgoingEvent | undefined {
  if ('error' in update) return undefined;
  const status = update.status === 'timeout' ? 'delivery-timeout' : update.status;
  const event: WebhookEvent = {
    type: `message.${status}`,
    timestamp: new Date().toISOString(),
    data: { id: String(update.id), log_id: update.id, status, ...(update.log ? { log: update.log } : {}) },
  };
  return { webhookId: `msg_${update.id}_${status}`, type: event.type, body: JSON.stringify(event) };
}
