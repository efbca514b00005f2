import { ReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { mediaLabel, mediaLabelProblem } from '../core/media/media-label.js';
import { type MediaInput, PathMedia } from '../types/media.js';
import { MEDIA_TYPES } from '../types/send.js';
import { compiledStrictObject, type FastSchema, withPrecheck } from './fast-path.js';
import { isStorableText, unstorableTextProblem } from './storable-text.js';
import * as z from './zod.js';

/** No NUL and no lone surrogate: what no datastore, nor the API, can hold (see storable-text.ts). */
const storable = () =>
  z.refine<string>(isStorableText, {
    error: (issue) => unstorableTextProblem(issue.input as string) ?? 'cannot be sent or stored',
  });

const phone = (field: string) =>
  z.string({ error: (i) => (i.input === undefined ? 'is required' : `must be a string, got ${typeof i.input}`) }).check(
    z.refine(
      (value) => value.trim().length > 0,
      `must not be blank (the ${field === 'to_phone' ? 'recipient' : 'sending number'}'s phone)`,
    ),
    storable(),
  );

function isMediaInput(value: unknown): boolean {
  return hasMediaShape(value) && mediaProblem(value as MediaInput) === undefined;
}

/**
 * Why a media input of the right kind cannot be sent or stored, or undefined. mediaLabelProblem
 * keeps the part's headers safe (no control character, NUL included, in the file name; printable
 * ASCII only in the content type). A queued send also stores the name and a path: neither may
 * hold a NUL or a lone surrogate either.
 */
function mediaProblem(media: MediaInput): string | undefined {
  const label = mediaLabel(media);
  const problem = mediaLabelProblem(label);
  if (problem !== undefined) return problem;
  const name = unstorableTextProblem(label.filename);
  if (name !== undefined) return `the file name ${name}`;
  const path = media instanceof PathMedia ? unstorableTextProblem(media.path) : undefined;
  return path === undefined ? undefined : `the path ${path}`;
}

/** A media input's kind, before its file name and content type are checked. */
function hasMediaShape(value: unknown): boolean {
  if (value instanceof Blob || value instanceof ReadStream || value instanceof PathMedia) return true;
  if (typeof value !== 'object' || value === null) return false;
  const { data, filename, size } = value as { data?: unknown; filename?: unknown; size?: unknown };
  return typeof filename === 'string' && filename.length > 0 && isMediaData(data) && isSize(size);
}

/** A `size` the caller may give: absent, or a whole number of bytes. */
function isSize(size: unknown): boolean {
  return size === undefined || (Number.isSafeInteger(size) && (size as number) >= 0);
}

function isMediaData(data: unknown): boolean {
  return (
    data instanceof Uint8Array ||
    data instanceof ArrayBuffer ||
    data instanceof Blob ||
    data instanceof Readable ||
    data instanceof ReadableStream ||
    (typeof data === 'object' && data !== null && Symbol.asyncIterator in data)
  );
}

function describeMediaProblem(value: unknown): string {
  // The part's file name and content type go into its headers: see mediaLabelProblem.
  if (hasMediaShape(value)) return mediaProblem(value as MediaInput) ?? 'changed while it was checked';
  if (value === undefined || value === null) return 'is required for image, voice and document messages';
  if (value instanceof Uint8Array || value instanceof ArrayBuffer)
    return "raw bytes need a file name: pass { data: bytes, filename: 'photo.jpg' }";
  if (value instanceof Readable || value instanceof ReadableStream)
    return "a stream has no file name: pass { data: stream, filename: 'photo.jpg' }, or use mediaFromPath(path)";
  if (typeof value === 'string') return 'a string is not a file: use mediaFromPath(path) to stream a file from disk';
  if (typeof value === 'object' && 'size' in value && !isSize(value.size))
    return `size must be the body's length in bytes (an integer >= 0), got ${typeof value.size === 'number' ? value.size : typeof value.size}`;
  return 'must be a File or Blob, an fs.ReadStream, mediaFromPath(path), or { data, filename } with bytes or a stream';
}

const media = z.custom<MediaInput>(isMediaInput, { error: (i) => describeMediaProblem(i.input) });

const common = {
  sender_phone: z.optional(phone('sender_phone')),
  sender_number_id: z.optional(
    z
      .int({ error: (i) => (typeof i.input === 'number' ? 'must be an integer' : 'must be a number') })
      .check(z.gte(1, 'must be an integer >= 1')),
  ),
  to_phone: phone('to_phone'),
};

/**
 * The plain-Zod check of `SendMessageParams`: the rules and the words of every issue. Callers use
 * `sendMessageParamsSchema`, which answers the commonest valid send without running it.
 */
export const sendMessageParamsZod = z
  .discriminatedUnion(
    'type',
    [
      compiledStrictObject({
        ...common,
        type: z.literal('text'),
        content: z
          .string({ error: 'is required for text messages (the message body)' })
          .check(z.minLength(1, 'must not be empty'), storable()),
        media: z.optional(z.undefined({ error: 'is only for image, voice and document messages' })),
      }),
      compiledStrictObject({
        ...common,
        type: z.enum(MEDIA_TYPES),
        content: z.optional(z.string({ error: 'must be a string (the caption)' }).check(storable())),
        media,
      }),
    ],
    { error: () => "must be 'text', 'image', 'voice' or 'document'" },
  )
  .check(
    z.superRefine(
      (value, ctx) => {
        const { sender_phone, sender_number_id } = value as { sender_phone?: unknown; sender_number_id?: unknown };
        if ((sender_phone === undefined) === (sender_number_id === undefined)) {
          ctx.addIssue({
            code: 'custom',
            path: ['sender_phone'],
            message:
              sender_phone === undefined
                ? 'give the sending number as sender_phone or sender_number_id'
                : 'give sender_phone or sender_number_id, not both',
          });
        }
      },
      // Run even when other fields failed, so one call reports every problem at once.
      { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
    ),
  );

const TEXT_SEND_KEYS = new Set(['sender_phone', 'sender_number_id', 'to_phone', 'type', 'content', 'media']);

/** A string with something other than whitespace in it, and nothing unstorable: the `phone` rules above. */
const isPhone = (value: unknown): boolean =>
  typeof value === 'string' && value.trim().length > 0 && isStorableText(value);

/**
 * True only for a text send that `sendMessageParamsZod` accepts unchanged: `type: 'text'`, a
 * non-empty `content`, a non-blank `to_phone`, exactly one of a non-blank `sender_phone` and an
 * integer `sender_number_id` >= 1, no NUL or lone surrogate in any of those strings, no `media`,
 * and no other key. Anything else (false) goes through Zod, which gives the verdict and the
 * issues. test/unit/core/send-schema-fast-path.test.ts checks over arbitrary inputs that it never accepts
 * what Zod rejects, and that Zod returns the same value.
 */
export function isPlainTextSend(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const send = value as Record<string, unknown>;
  if (send['type'] !== 'text' || send['media'] !== undefined) return false;
  const content = send['content'];
  if (typeof content !== 'string' || content.length === 0 || !isStorableText(content)) return false;
  if (!isPhone(send['to_phone'])) return false;
  const phone = send['sender_phone'];
  const id = send['sender_number_id'];
  if (phone === undefined) {
    if (!(Number.isSafeInteger(id) && (id as number) >= 1)) return false;
  } else if (id !== undefined || !isPhone(phone)) return false;
  for (const key of Object.keys(send)) if (!TEXT_SEND_KEYS.has(key)) return false;
  return true;
}

/**
 * Runtime check of `SendMessageParams`, for JavaScript callers and values built at run time.
 * Only for values the SDK owns (its own checked copy of the caller's fields): a plain text send
 * is handed back as given.
 */
export const sendMessageParamsSchema: FastSchema<z.output<typeof sendMessageParamsZod>> = withPrecheck(
  sendMessageParamsZod,
  isPlainTextSend,
);
