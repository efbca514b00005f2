/**
 * One Operation Object per row of the endpoint table: method, path, summary and scope from the
 * table; parameters, bodies and answers as far as the specification shows them (notes.ts).
 */
import { ENDPOINTS, type EndpointDefinition, type EndpointName } from '../endpoints.js';
import { notShown, OPERATION_NOTES, type OperationNotes } from './notes.js';
import type { Operation, Parameter, RequestBody, Response } from './types.js';

const ref = (kind: 'schemas' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const json = (schema: Record<string, unknown>) => ({ 'application/json': { schema } });

/** The name of the API key scheme in `components.securitySchemes`. */
export const API_KEY = 'ApiKey';

/** Section 4.4's query parameters; the spec does not say whether they are required. */
const LOOKUP_QUERY: Parameter[] = [
  { name: 'phone', in: 'query', required: false, description: 'Recipient phone.', schema: { type: 'string' } },
  {
    name: 'sender_phone',
    in: 'query',
    required: false,
    description: 'Sending number phone.',
    schema: { type: 'string' },
  },
];

/** Section 4.2: JSON for text, multipart/form-data for media (with the file as the binary `media` part). */
const SEND_BODY: RequestBody = {
  required: true,
  description: 'A text message as JSON, or a media message as multipart/form-data.',
  content: {
    'application/json': { schema: ref('schemas', 'SendTextMessage') },
    'multipart/form-data': {
      schema: ref('schemas', 'SendMediaMessage'),
      // The file's own type goes in its part; which types are allowed is not shown.
      encoding: { media: { contentType: '*/*' } },
    },
  },
};

/** The path parameters of a row: each `{name}` is an id, an integer >= 1 (section 8). */
function pathParameters(row: EndpointDefinition): Parameter[] {
  return Object.entries(row.ids ?? {}).map(([name, id]) => ({
    name,
    in: 'path',
    required: true,
    description: `The ${id.resource} id: ${id.source}.`,
    schema: { type: 'integer', minimum: 1 },
  }));
}

/** The answers: the success the spec shows (or an open one), its errors, and an open `default`. */
function responses(row: EndpointDefinition, notes: OperationNotes): Record<string, Response> {
  const success: Record<string, Response> = notes.success
    ? {
        [notes.success.status]: {
          description: notes.success.description,
          content: json(ref('schemas', 'MessageLogEnvelope')),
        },
      }
    : {
        '2XX': {
          description: `Success. ${notShown(notes.notShown ?? 'the response')}`,
          content: json({ description: notShown(notes.notShown ?? 'the response') }),
        },
      };
  return {
    ...success,
    '401': ref('responses', 'Unauthenticated'),
    ...(row.scope === null ? {} : { '403': ref('responses', 'MissingScope') }),
    ...(notes.notFound ? { '404': { description: notes.notFound, content: json(ref('schemas', 'ErrorBody')) } } : {}),
    default: ref('responses', 'NotShown'),
  };
}

/** The Operation Object of endpoint `name`. */
export function operation(name: EndpointName): Operation {
  const row: EndpointDefinition = ENDPOINTS[name];
  const notes: OperationNotes = OPERATION_NOTES[name];
  const parameters = [...pathParameters(row), ...(name === 'lookupContact' ? LOOKUP_QUERY : [])];
  return {
    operationId: name,
    summary: row.summary,
    description: notes.description,
    'x-scope': row.scope,
    // Scopes as the requirement's roles (OpenAPI 3.1 allows roles for API key schemes).
    security: [{ [API_KEY]: row.scope === null ? [] : [row.scope] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(name === 'sendMessage' ? { requestBody: SEND_BODY } : {}),
    responses: responses(row, notes),
  };
}
