/**
 * `components.schemas` of the OpenAPI document, from the SDK's own Zod schemas: the MessageLog the
 * SDK parses (as tolerant as the SDK: unknown fields and unknown enum values pass), the send bodies
 * it checks before sending, and the `{ message }` error body of section 7.
 */
import { compiledLooseObject } from '../schemas/fast-path.js';
import { messageLogShape } from '../schemas/message-log.js';
import { sendMessageParamsZod } from '../schemas/send.js';
import * as z from '../schemas/zod.js';
import { DELIVERY_STATUSES, MESSAGE_TYPES } from '../types/message-log.js';
import { MESSAGE_LOG_FIELDS, SEND_FIELDS } from './notes.js';
import type { JsonSchema } from './types.js';
import { componentSchemas } from './zod-json-schema.js';

const [textSend, mediaSend] = sendMessageParamsZod._zod.def.options;
// The JSON body has no media part: the SDK's `media: undefined` check is about its own input.
const { media: _noMedia, ...textFields } = textSend.shape;

/** JSON Schemas for the SDK's `z.custom` checks, which Zod cannot express. */
const replacements = new Map<unknown, JsonSchema>([
  [
    messageLogShape.request_payload,
    {
      description: `${MESSAGE_LOG_FIELDS.request_payload} PHP writes an empty one as \`[]\`, which the SDK reads as {}.`,
      anyOf: [{ type: 'object' }, { type: 'array', maxItems: 0 }],
    },
  ],
  [
    mediaSend.shape.media,
    {
      description: 'The file part. Allowed media types and sizes are not shown by the specification.',
      type: 'string',
      contentMediaType: 'application/octet-stream',
    },
  ],
]);

/**
 * The send bodies are open objects (the spec does not say other fields are refused; the SDK's
 * strictness guards its callers' typos) that name the sending number at least once: section 2.2
 * requires "one of sender_phone or sender_number_id" (the SDK also refuses both, its own rule).
 */
const NAMES_SENDER = { anyOf: [{ required: ['sender_phone'] }, { required: ['sender_number_id'] }] };

/** Every schema of `components.schemas`, by name. */
export function schemas(): Record<string, JsonSchema> {
  const log = compiledLooseObject(messageLogShape);
  const built = componentSchemas(
    [
      [log, { id: 'MessageLog', description: 'A tenant-scoped record of one message dispatch (section 2.1).' }],
      [
        z.looseObject({ data: log }),
        { id: 'MessageLogEnvelope', description: 'One MessageLog as `data`; other fields are not shown.' },
      ],
      [
        z.looseObject({ message: z.string() }),
        { id: 'ErrorBody', description: 'An error body: a JSON object with `message` (section 7).' },
      ],
      [
        z.looseObject(textFields),
        { id: 'SendTextMessage', description: 'A text send: `type` is `text`, `content` the message body.' },
      ],
      [
        z.looseObject(mediaSend.shape),
        {
          id: 'SendMediaMessage',
          description: 'A media send: `type` is image, voice or document, `content` the caption.',
        },
      ],
    ],
    replacements,
  );
  describeFields(built['MessageLog'], MESSAGE_LOG_FIELDS);
  const logFields = built['MessageLog']?.['properties'] as Record<string, JsonSchema>;
  Object.assign(logFields['delivery_status'] ?? {}, { examples: [...DELIVERY_STATUSES] });
  Object.assign(logFields['message_type'] ?? {}, { examples: [...MESSAGE_TYPES] });
  for (const send of ['SendTextMessage', 'SendMediaMessage']) {
    describeFields(built[send], SEND_FIELDS);
    Object.assign(built[send] ?? {}, NAMES_SENDER);
  }
  return built;
}

/** Puts each field's words on its property schema. */
function describeFields(schema: JsonSchema | undefined, words: Record<string, string>): void {
  const properties = (schema?.['properties'] ?? {}) as Record<string, JsonSchema>;
  for (const [field, description] of Object.entries(words)) {
    const property = properties[field];
    if (property === undefined) throw new Error(`The OpenAPI document describes ${field}, which the schema lacks`);
    property['description'] ??= description;
  }
}
