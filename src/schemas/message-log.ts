import { DELIVERY_STATUSES, MESSAGE_TYPES, type MessageLog } from '../types/message-log.js';
import { LARAVEL_DATETIME } from './datetime.js';
import { compiledLooseObject, type FastSchema, fastSchema } from './fast-path.js';
import { knownOrString } from './known-or-string.js';
import { emptyPayloadAsObject } from './message-log-check.js';
import * as z from './zod.js';

/**
 * PHP serialises an empty associative array as `[]`, so an empty `request_payload` can arrive as
 * an empty JSON array: accept it here (`emptyPayloadAsObject` below makes it `{}`).
 */
const phpObject = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && (!Array.isArray(value) || value.length === 0),
  'expected an object',
);

/** Integers: a plain number check plus an integer check measured cheaper than `z.int()`. */
const id = z.number().check(z.int());

/** The fields of spec section 2.1 and their checks (exported for the compiled-parser tests). */
export const messageLogShape = {
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
  response_payload: compiledLooseObject({
    conversation_id: id,
    message_id: id,
    media_url: z.nullable(z.string()),
  }),
  sent_at: z.nullable(
    z.string().check(z.regex(LARAVEL_DATETIME, 'expected an ISO 8601 date-time such as 2026-11-21T10:00:00.000000Z')),
  ),
};

/**
 * Runtime schema of `MessageLog`: loose, so unknown fields pass through and are kept. A hot path
 * (every `get`, `send` and page), so it opts into `fastSchema`: a valid log is returned as given
 * (every caller passes a value it has just parsed from JSON and owns), anything else goes
 * through Zod, which gives the issues.
 */
export const messageLogSchema: FastSchema<MessageLog> = fastSchema(compiledLooseObject(messageLogShape), {
  afterParse: emptyPayloadAsObject,
});

export { emptyPayloadAsObject };
