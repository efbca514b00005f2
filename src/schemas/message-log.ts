import { DELIVERY_STATUSES, MESSAGE_TYPES, type MessageLog } from '../types/message-log.js';
import { knownOrString } from './known-or-string.js';
import * as z from './zod.js';

export * from '../types/message-log.js';

/** The service's date-time format: ISO 8601, Laravel style, e.g. `2026-11-21T10:00:00.000000Z`. */
const LARAVEL_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * PHP serialises an empty associative array as `[]`, so an empty `request_payload` can arrive as
 * an empty JSON array. Read it as the empty object it means.
 */
const phpObject = z.pipe(
  z.transform((value: unknown) => (Array.isArray(value) && value.length === 0 ? {} : value)),
  z.record(z.string(), z.unknown()),
);

const id = z.int();

/** Runtime schema of `MessageLog`: loose, so unknown fields pass through and are kept. */
export const messageLogSchema: z.ZodMiniType<MessageLog, unknown> = z.looseObject({
  id,
  sender_number_id: id,
  recipient_user_id: z.nullable(id),
  conversation_id: z.nullable(id),
  message_id: z.nullable(id),
  message_type: knownOrString(MESSAGE_TYPES),
  content: z.nullable(z.string()),
  status: z.string(),
  delivery_status: knownOrString(DELIVERY_STATUSES),
  request_payload: phpObject,
  response_payload: z.looseObject({
    conversation_id: id,
    message_id: id,
    media_url: z.nullable(z.string()),
  }),
  sent_at: z.nullable(
    z.string().check(z.regex(LARAVEL_DATETIME, 'expected an ISO 8601 date-time such as 2026-11-21T10:00:00.000000Z')),
  ),
});
