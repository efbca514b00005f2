/**
 * A MessageLog check that needs no Zod, for the calls made before the schemas are loaded.
 *
 * Why: loading Zod and the schemas is the largest cost of a cold start's first `messages.get`
 * (see README, Performance), and a serverless function that reads one log should not pay it.
 * It answers only "valid as is"; everything else (an invalid log, anything unusual) loads the
 * schemas and goes through Zod, which gives the verdict and the issues. Written beside the schema
 * in message-log.ts rather than derived from it (deriving needs Zod loaded), so
 * test/unit/core/schema-fast-paths.test.ts holds it to Zod's verdict: whatever it accepts, the schema
 * accepts with a deep-equal value.
 */
import type { MessageLog } from '../types/message-log.js';
import { LARAVEL_DATETIME } from './datetime.js';

type Fields = Record<string, unknown>;

/**
 * An object as JSON.parse makes it, which Zod's copy equals: Object's own prototype (no inherited
 * fields, no class), no own `__proto__` key. Anything else is left to Zod.
 */
function isRecord(value: unknown): value is Fields {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    !Object.hasOwn(value, '__proto__')
  );
}

const isId = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value);
const isNullableId = (value: unknown) => value === null || isId(value);
const isNullableString = (value: unknown) => value === null || typeof value === 'string';

/** PHP serialises an empty associative array as `[]`: accepted, as the schema accepts it. */
const isPhpObject = (value: unknown) =>
  typeof value === 'object' && value !== null && (!Array.isArray(value) || value.length === 0);

/** True only for a value `messageLogSchema` accepts; false says nothing (ask the schema). */
export function isMessageLog(value: unknown): value is MessageLog {
  if (!isRecord(value)) return false;
  const payload = value['response_payload'];
  const sentAt = value['sent_at'];
  return (
    isId(value['id']) &&
    isId(value['sender_number_id']) &&
    isNullableId(value['recipient_user_id']) &&
    isNullableId(value['conversation_id']) &&
    isNullableId(value['message_id']) &&
    typeof value['message_type'] === 'string' &&
    isNullableString(value['content']) &&
    typeof value['status'] === 'string' &&
    typeof value['delivery_status'] === 'string' &&
    isPhpObject(value['request_payload']) &&
    isRecord(payload) &&
    isId(payload['conversation_id']) &&
    isId(payload['message_id']) &&
    isNullableString(payload['media_url']) &&
    (sentAt === null || (typeof sentAt === 'string' && LARAVEL_DATETIME.test(sentAt)))
  );
}

/**
 * PHP serialises an empty associative array as `[]`: read an empty `request_payload` array as the
 * `{}` it means. A step after the check rather than a transform in the schema, because a transform
 * measured as the most expensive step of parsing a log; it copies the log only when it changes it.
 */
export function emptyPayloadAsObject(log: MessageLog): MessageLog {
  return Array.isArray(log.request_payload) ? { ...log, request_payload: {} } : log;
}
