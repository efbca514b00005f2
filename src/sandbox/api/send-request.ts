import { sendMessageParamsSchema } from '../../schemas/validators.js';
import { MEDIA_TYPES } from '../../types/send.js';
import { type FieldErrors, rules } from '../http/laravel.js';
import { textProblem } from '../http/text-rules.js';
import { isPhone } from '../state/phones.js';
import { SandboxDriftError } from '../state/state.js';
import type { SenderNumber, Tenant } from '../state/tenants.js';

/** A send request that passed validation. */
export interface ValidSend {
  readonly sender: SenderNumber;
  /** The field that named the sender, for errors about it. */
  readonly senderField: 'sender_phone' | 'sender_number_id';
  readonly toPhone: string;
  readonly type: string;
  readonly content: string | null;
  readonly media: File | null;
  /** The fields as sent (no file bytes): the log's `request_payload`. */
  readonly payload: Record<string, unknown>;
}

/** The message types `POST /messages` accepts. */
export const TYPES = ['text', ...MEDIA_TYPES] as const;
const MAX_CONTENT = 4096;
/** The fields the text rules apply to: every text field of a send (media is a file). */
const TEXT_FIELDS = ['sender_phone', 'sender_number_id', 'to_phone', 'type', 'content'] as const;
const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'webp', 'heic'];
const VOICE_EXTENSIONS = ['mp3', 'm4a', 'aac', 'ogg', 'oga', 'opus', 'wav', 'amr', 'webm'];

/**
 * Validates a send with the rules the SDK enforces, reported in Laravel's words, in this order:
 * sender_phone / sender_number_id (exactly one, naming a number of this tenant), to_phone,
 * type, content (required for text), media (required for media types, prohibited for text).
 * A text field the text rules refuse (a NUL, not UTF-8) gets only that message.
 */
export function validateSend(
  input: Record<string, unknown>,
  tenant: Tenant,
  maxMediaBytes: number,
): { errors: FieldErrors } | { send: ValidSend } {
  const errors: FieldErrors = {};
  const fail = (field: string, message: string) => {
    errors[field] ??= [];
    errors[field].push(message);
  };
  const { sender_phone: senderPhone, sender_number_id: senderId, to_phone: toPhone, type, content, media } = input;
  for (const field of TEXT_FIELDS) {
    const problem = textProblem(field, input[field]);
    if (problem !== undefined) fail(field, problem);
  }
  const refused = (field: (typeof TEXT_FIELDS)[number]) => errors[field] !== undefined;

  let sender: SenderNumber | undefined;
  if (senderPhone === undefined && senderId === undefined) {
    fail('sender_phone', rules.requiredWithout('sender_phone', 'sender_number_id'));
    fail('sender_number_id', rules.requiredWithout('sender_number_id', 'sender_phone'));
  } else if (refused('sender_phone') || refused('sender_number_id')) {
    // Already refused by a text rule: no number can be looked up from it.
  } else if (senderPhone !== undefined && senderId !== undefined) {
    fail('sender_phone', rules.prohibits('sender_phone', 'sender_number_id'));
  } else if (senderPhone !== undefined) {
    if (typeof senderPhone !== 'string') fail('sender_phone', rules.string('sender_phone'));
    else {
      sender = tenant.senderNumbers.find((n) => n.phone === senderPhone);
      if (!sender) fail('sender_phone', rules.selected('sender_phone'));
    }
  } else {
    const id = integerValue(senderId);
    if (id === undefined) fail('sender_number_id', rules.integer('sender_number_id'));
    else if (id < 1) fail('sender_number_id', rules.min('sender_number_id', 1));
    else {
      sender = tenant.senderNumbers.find((n) => n.id === id);
      if (!sender) fail('sender_number_id', rules.selected('sender_number_id'));
    }
  }

  if (!refused('to_phone')) {
    if (toPhone === undefined) fail('to_phone', rules.required('to_phone'));
    else if (typeof toPhone !== 'string') fail('to_phone', rules.string('to_phone'));
    else if (!isPhone(toPhone)) fail('to_phone', rules.format('to_phone'));
  }

  if (!refused('type')) {
    if (type === undefined) fail('type', rules.required('type'));
    else if (!TYPES.includes(type as (typeof TYPES)[number])) fail('type', rules.selected('type'));
  }

  // `required_if:type,text`, in its own words, as the real service words it.
  if (refused('content')) {
    // Already refused by a text rule.
  } else if (content === undefined) {
    if (type === 'text') fail('content', rules.requiredIf('content', 'type', 'text'));
  } else if (typeof content !== 'string') fail('content', rules.string('content'));
  else if (content.length > MAX_CONTENT) fail('content', rules.maxString('content', MAX_CONTENT));

  const isMedia = MEDIA_TYPES.includes(type as (typeof MEDIA_TYPES)[number]);
  if (type === 'text' && media !== undefined) fail('media', rules.prohibitedIf('media', 'type', 'text'));
  if (isMedia) {
    if (media === undefined) fail('media', rules.requiredIf('media', 'type', type as string));
    else if (!(media instanceof File)) fail('media', rules.file('media'));
    else {
      if (media.size > maxMediaBytes) fail('media', rules.maxFile('media', Math.floor(maxMediaBytes / 1024)));
      const allowed = type === 'image' ? IMAGE_EXTENSIONS : type === 'voice' ? VOICE_EXTENSIONS : undefined;
      if (allowed && !matchesType(media, allowed, type === 'image' ? 'image/' : 'audio/')) {
        fail('media', rules.mimes('media', allowed.join(', ')));
      }
    }
  }

  if (Object.keys(errors).length > 0 || !sender) return { errors };
  const valid: ValidSend = {
    sender,
    senderField: senderPhone !== undefined ? 'sender_phone' : 'sender_number_id',
    toPhone: toPhone as string,
    type: type as string,
    content: (content as string | undefined) ?? null,
    media: (media as File | undefined) ?? null,
    payload: payloadOf(input),
  };
  assertSdkAgrees(valid);
  return { send: valid };
}

/** A value Laravel's `integer` rule accepts: an integer, or a string of one. */
function integerValue(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value);
  return undefined;
}

function matchesType(file: File, extensions: string[], mimePrefix: string): boolean {
  const ext = file.name.slice(file.name.lastIndexOf('.') + 1).toLowerCase();
  return extensions.includes(ext) || file.type.startsWith(mimePrefix);
}

/** The fields that were sent, with the file described instead of included. */
function payloadOf(input: Record<string, unknown>): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const field of ['sender_phone', 'sender_number_id', 'to_phone', 'type', 'content']) {
    if (input[field] !== undefined) payload[field] = input[field];
  }
  const media = input['media'];
  // Described as a Laravel app describes an UploadedFile (getClientOriginalName(), ...); never its bytes.
  if (media instanceof File) {
    payload['media'] = {
      original_name: media.name,
      mime_type: media.type || 'application/octet-stream',
      size: media.size,
    };
  }
  return payload;
}

/**
 * Why: what the sandbox accepts must be something the SDK would send. If the SDK's own schema
 * refuses a request the sandbox just validated, the two have drifted: fail loudly.
 */
function assertSdkAgrees(send: ValidSend): void {
  const params: Record<string, unknown> = {
    [send.senderField]: send.senderField === 'sender_phone' ? send.sender.phone : send.sender.id,
    to_phone: send.toPhone,
    type: send.type,
  };
  if (send.content !== null) params['content'] = send.content;
  // The file's kind and type, not its name: the SDK refuses control characters in a name it
  // writes into its own part headers, a rule of its encoder that the service does not have.
  if (send.media) params['media'] = new Blob([], { type: send.media.type });
  const checked = sendMessageParamsSchema.safeParse(params);
  if (!checked.success) {
    throw new SandboxDriftError(
      `The sandbox accepted a send the SDK's schema rejects: ${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
}
