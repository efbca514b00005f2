/**
 * The specification's own words for the document's descriptions (docs: ../shared/spec, sections
 * cited), and the words for every place it leaves open. Kept apart from the generator so that a
 * reader can check them against the spec in one place.
 */
import type { EndpointName } from '../endpoints.js';
import type { MessageLog } from '../types/message-log.js';

/** What the spec says a place is not shown: the description of every open schema. */
export const notShown = (what: string) =>
  `Not shown by the specification (${what}): any JSON value is accepted here, so that the document invents no shape.`;

/** Section 2.1, field by field; a new MessageLog field must get its words here. */
export const MESSAGE_LOG_FIELDS = {
  id: 'Tenant message log ID: the path parameter of GET /messages/{messageLog}.',
  sender_number_id: 'The sender number used.',
  recipient_user_id: 'Recipient user ID, or null.',
  conversation_id: 'Conversation ID, or null.',
  message_id: 'ID of the underlying chat message, or null. Not accepted by GET /messages/{messageLog}.',
  message_type:
    'One of text, image, voice, audio, document. Any other string is accepted, as the SDK keeps unknown values.',
  content: 'Text body, or the caption of a media message.',
  status:
    'Dispatch status recorded at sending. `sent` means accepted and stored; it does not describe delivery or reading. Other values: not shown.',
  delivery_status:
    'Read-only current receipt state: sent (stored, no confirmed delivery), delivered, read (implies delivered) or unknown. Any other string is accepted, as the SDK keeps unknown values.',
  request_payload: 'Free-form object with arbitrary keys.',
  response_payload:
    'What the service returned on accepting the dispatch. `media_url` is an opaque managed URL (spec: string, URI, nullable): never build storage paths from it.',
  sent_at:
    'Time the dispatch was accepted (spec: date-time, e.g. 2026-11-21T10:00:00.000000Z), or null. Not the delivery or read time.',
} as const satisfies Record<keyof MessageLog, string>;

/** One endpoint's words, and what the spec shows of its answer. */
export interface OperationNotes {
  /** Section 4's description of the endpoint. */
  readonly description: string;
  /** The success answer: the status and body the spec shows, or `undefined` where it shows neither. */
  readonly success?: { readonly status: '200' | '2XX'; readonly description: string };
  /** What the spec says of the success answer when it does not show it. */
  readonly notShown?: string;
  /** The 404 answer's meaning, where the spec lists 404 for the endpoint (section 7). */
  readonly notFound?: string;
}

/** Section 4, endpoint by endpoint; a new endpoint of the table must get its words here. */
export const OPERATION_NOTES = {
  me: {
    description: 'Tenant identity and runtime context. Any active API key may call it (section 4.5).',
    notShown: 'the success status and the response shape of GET /me',
  },
  subscription: {
    description: 'Subscription status. Any active API key may call it (section 4.5).',
    notShown: 'the success status and the response shape of GET /subscription',
  },
  usage: {
    description: 'Usage counters and limits (section 4.5).',
    notShown: 'the success status and the response shape of GET /usage',
  },
  listSenderNumbers: {
    description:
      'Lists the sender numbers. A sender number has a registration and activation state; one state is named, pending_account_verification (section 3). Any active API key may call it (section 4.5).',
    notShown: 'the success status and the response shape of GET /sender-numbers',
  },
  lookupContact: {
    description: 'Checks whether a recipient can receive messages (section 4.4).',
    notShown: 'the success status and the response shape of GET /contacts/lookup',
  },
  sendMessage: {
    description:
      'Sends a message (section 4.2): a JSON body for text, a multipart/form-data body for media. Validation rules, limits on fields and files, the success status code and the complete response body are not shown by the specification.',
    success: {
      status: '2XX',
      description:
        'The message was accepted: `data` carries the new MessageLog, with `data.id` (for GET /messages/{messageLog}) and `delivery_status`. The success status code and the rest of the body are not shown by the specification (a Laravel implementation answers 201).',
    },
  },
  getMessage: {
    description:
      'Reads one MessageLog of the current tenant, with its current delivery_status (section 4.1). A log of another tenant is handled as nonexistent (404). To track delivery or reading, poll this endpoint from your server, with a delay between polls and an overall timeout: no delivery webhooks and no receipt timestamps exist.',
    success: { status: '200', description: 'The log, with its current delivery_status.' },
    notFound: 'The log does not exist in the current tenant workspace (another tenant’s log included).',
  },
  listMessages: {
    description:
      'Lists the message logs of the tenant; each item carries delivery_status (section 4.3). Query parameters, pagination, ordering and the response envelope are not shown by the specification.',
    notShown:
      'the success status, query parameters, pagination, ordering and the response envelope of GET /messages (a Laravel implementation answers a paginated `{ data, links, meta }` and reads `page`)',
  },
} as const satisfies Record<EndpointName, OperationNotes>;

/** Section 2.2, field by field (the media part's words are on its schema). */
export const SEND_FIELDS = {
  sender_phone: 'Phone of the sending number. Give sender_phone or sender_number_id.',
  sender_number_id: 'ID of the sending number. Give sender_phone or sender_number_id.',
  to_phone: 'Recipient phone.',
  type: '`text` for JSON bodies; `image`, `voice` or `document` for multipart bodies.',
  content: 'For text: the message body. For media: the caption.',
} as const;
