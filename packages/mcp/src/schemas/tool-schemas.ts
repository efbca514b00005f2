/**
 * The JSON Schema `tools/list` shows of each tool. The API's shapes come from the SDK's OpenAPI
 * document (`tenant-messaging/openapi.json`, a public entry), which the SDK's build derives from
 * its own Zod schemas: the MessageLog, the text send, the log id and the lookup's parameters are
 * never written twice, and never copied from the SDK's inside. Only this server's own arguments (a
 * page, a timeout, an approval) and results (the preview) are written here; test/integration/mcp.test.ts
 * checks each input against `z.toJSONSchema` of the Zod schema that checks it (schemas.ts).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { WAIT_TIMEOUT } from '../state/limits.js';
import { MAX_APPROVAL_LENGTH, MAX_PAGE } from './schemas.js';

/** A JSON Schema of an object, as a tool's input or output. */
export type JsonSchema = { type: 'object'; properties?: Record<string, object>; required?: string[] } & Record<
  string,
  unknown
>;

/** A tool's two schemas. */
export interface ToolSchemas {
  readonly input: JsonSchema;
  readonly output: JsonSchema;
}

/**
 * The OpenAPI document the SDK ships (`tenant-messaging/openapi.json`).
 *
 * @example
 * ```ts
 * const schemas = toolSchemas(await readApiDocument())
 * ```
 */
export async function readApiDocument(): Promise<unknown> {
  // Resolved from here: wherever npm installed the SDK beside this package (its `exports` list the document).
  const path = createRequire(import.meta.url).resolve('tenant-messaging/openapi.json');
  return JSON.parse(await readFile(path, 'utf8'));
}

/**
 * Every tool's schemas, from the OpenAPI `document`. Throws when the document lacks a part (a
 * package built without it).
 *
 * @example
 * ```ts
 * toolSchemas(document)['get_message']?.input // { type: 'object', properties: { id: ... }, required: ['id'] }
 * ```
 */
export function toolSchemas(document: unknown): Readonly<Record<string, ToolSchemas>> {
  const doc = document as ApiDocument;
  const component = (name: string) => must(doc?.components?.schemas?.[name], `components.schemas.${name}`);
  const parameter = (path: string, name: string) => {
    const found = doc?.paths?.[path]?.['get']?.parameters?.find((p) => p.name === name);
    const schema = must(found?.schema, `the parameter ${name} of GET ${path}`);
    return found?.description ? { ...schema, description: found.description } : schema;
  };
  const log = component('MessageLog');
  const logId = parameter('/messages/{messageLog}', 'messageLog');
  const { anyOf: _sender, additionalProperties: _open, ...send } = component('SendTextMessage');
  const none = object({});
  const anyObject: JsonSchema = { type: 'object' };
  return {
    get_message: { input: object({ id: logId }, ['id']), output: log },
    list_messages: {
      input: object({
        page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, description: 'The page, from 1 (the newest logs).' },
      }),
      output: object(
        {
          messages: { type: 'array', items: log },
          page: {
            anyOf: [anyObject, { type: 'null' }],
            description:
              'The paging counters the API sent (current_page, last_page, per_page, total, from, to), if any.',
          },
          next_page: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'The next page, or null.' },
        },
        ['messages', 'page', 'next_page'],
      ),
    },
    wait_for_delivery: {
      input: object(
        {
          id: logId,
          timeout: {
            type: 'integer',
            minimum: WAIT_TIMEOUT.min,
            maximum: WAIT_TIMEOUT.max,
            description: `How long to wait, in ms (default ${WAIT_TIMEOUT.default}).`,
          },
          until: {
            type: 'string',
            enum: ['delivered', 'read'],
            description: 'The status to wait for (default delivered).',
          },
        },
        ['id'],
      ),
      output: log,
    },
    lookup_contact: {
      input: object(
        { phone: parameter('/contacts/lookup', 'phone'), sender_phone: parameter('/contacts/lookup', 'sender_phone') },
        ['phone', 'sender_phone'],
      ),
      output: anyObject,
    },
    list_sender_numbers: {
      input: none,
      output: object({ sender_numbers: { type: 'array', items: anyObject } }, ['sender_numbers']),
    },
    get_usage: { input: none, output: anyObject },
    prepare_send: {
      // Refused by the SDK's check: other fields, and both senders or neither (said in the descriptions).
      input: { ...send, type: 'object', additionalProperties: false, properties: described(send.properties) },
      output: object(
        {
          approval: { type: 'string', description: 'Pass it to send_message once the person approved the preview.' },
          expires_at: { type: 'string', description: 'When the approval expires unused (ISO 8601).' },
          preview: object(
            {
              sender_phone: { type: 'string' },
              sender_number_id: { type: 'integer' },
              to_phone: { type: 'string' },
              type: { type: 'string', const: 'text' },
              content: { type: 'string' },
              when: { type: 'string', description: 'When it would go out, given the rate limit and the quota.' },
              not_before: { anyOf: [{ type: 'string' }, { type: 'null' }] },
              sends_left: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'Under --max-sends.' },
            },
            ['to_phone', 'type', 'content', 'when', 'not_before', 'sends_left'],
          ),
        },
        ['approval', 'expires_at', 'preview'],
      ),
    },
    send_message: {
      input: object(
        {
          approval: {
            type: 'string',
            minLength: 1,
            maxLength: MAX_APPROVAL_LENGTH,
            description: 'The approval prepare_send returned. Nothing else: the message is the one prepared.',
          },
        },
        ['approval'],
      ),
      output: log,
    },
  };
}

/** The parts of the OpenAPI document read here. */
interface ApiDocument {
  readonly components?: { readonly schemas?: Record<string, JsonSchema> };
  readonly paths?: Record<
    string,
    Record<string, { readonly parameters?: { name: string; description?: string; schema?: JsonSchema }[] }>
  >;
}

/** A closed object of `properties`. */
function object(properties: Record<string, object>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`tenant-messaging/openapi.json has no ${what}: rebuild the package`);
  return value;
}

/** What the model reads of each send field (the document's words speak of media too). */
const SEND_FIELDS: Readonly<Record<string, string>> = {
  sender_phone: 'The sending number’s phone (list_sender_numbers). Give this or sender_number_id, not both.',
  sender_number_id: 'The sending number’s id (list_sender_numbers). Give this or sender_phone, not both.',
  to_phone: 'The recipient’s phone, e.g. +15557654321.',
  type: 'Only text messages can be prepared.',
  content: 'The message body, exactly as it will be sent.',
};

function described(properties: Record<string, object> | undefined): Record<string, object> {
  return Object.fromEntries(
    Object.entries(properties ?? {}).map(([name, schema]) => [
      name,
      SEND_FIELDS[name] === undefined ? schema : { ...schema, description: SEND_FIELDS[name] },
    ]),
  );
}
