import type { KnownOrString } from './known-or-string.js';

/** Values of `delivery_status` the specification lists (section 2.1). */
export const DELIVERY_STATUSES = ['sent', 'delivered', 'read', 'unknown'] as const;
/** `sent` (stored, no confirmed delivery), `delivered`, `read` (implies delivered) or `unknown`. */
export type DeliveryStatus = KnownOrString<(typeof DELIVERY_STATUSES)[number]>;

/** Values of `message_type` the specification lists. */
export const MESSAGE_TYPES = ['text', 'image', 'voice', 'audio', 'document'] as const;
/** The kind of message a log records. `audio` appears in logs although `send` accepts only `voice`. */
export type MessageType = KnownOrString<(typeof MESSAGE_TYPES)[number]>;

/** What the service returned when it accepted the dispatch (spec section 2.1). */
export interface ResponsePayload {
  /** The conversation the message went into. */
  conversation_id: number;
  /** The underlying chat message. Not accepted by `messages.get`: use the log's `id`. */
  message_id: number;
  /** An opaque managed URL of the media, or null for text. Do not build storage paths from it. */
  media_url: string | null;
}

/**
 * A tenant-scoped record of one message dispatch (spec section 2.1). Fields the service adds
 * beyond the specification are kept on the object at run time.
 */
export interface MessageLog {
  /** The message log ID: pass it to `messages.get` and `waitForDelivery`. */
  id: number;
  /** The sender number used. */
  sender_number_id: number;
  recipient_user_id: number | null;
  conversation_id: number | null;
  /** ID of the underlying chat message. Not accepted by `messages.get`. */
  message_id: number | null;
  /** `text`, `image`, `voice`, `audio` or `document`. */
  message_type: MessageType;
  /** The text body, or the caption of a media message. */
  content: string | null;
  /** Dispatch status recorded at sending. `sent` means accepted and stored; it says nothing about delivery. */
  status: string;
  /** The current receipt state, read at request time: `sent`, `delivered`, `read` or `unknown`. */
  delivery_status: DeliveryStatus;
  /** Free-form object echoing the request. */
  request_payload: Record<string, unknown>;
  response_payload: ResponsePayload;
  /** When the dispatch was accepted (not delivered, not read), e.g. `2026-11-21T10:00:00.000000Z`. */
  sent_at: string | null;
}
