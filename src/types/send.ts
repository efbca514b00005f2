import type { MediaInput } from './media.js';

/** Media message types `send` accepts; they go as `multipart/form-data`. */
export const MEDIA_TYPES = ['image', 'voice', 'document'] as const;
/** `image`, `voice` or `document`. */
export type MediaMessageType = (typeof MEDIA_TYPES)[number];

/** Name the sending number by its phone... */
interface BySenderPhone {
  /** Phone of the sending number, e.g. `+15550000001`. Give this or `sender_number_id`, not both. */
  sender_phone: string;
  sender_number_id?: never;
}
/** ...or by its id. */
interface BySenderNumberId {
  /** ID of the sending number. Give this or `sender_phone`, not both. */
  sender_number_id: number;
  sender_phone?: never;
}
/** Exactly one of `sender_phone` or `sender_number_id`. */
export type SenderRef = BySenderPhone | BySenderNumberId;

/** A text message: sent as a JSON body. */
export type SendTextParams = SenderRef & {
  /** Recipient phone. */
  to_phone: string;
  type: 'text';
  /** The message body. */
  content: string;
  media?: never;
};

/** A media message: sent as a streamed `multipart/form-data` body. */
export type SendMediaParams = SenderRef & {
  /** Recipient phone. */
  to_phone: string;
  /** `image`, `voice` or `document`. */
  type: MediaMessageType;
  /** The caption. */
  content?: string;
  /** The file: a `File`/`Blob`, an `fs.ReadStream`, `mediaFromPath(path)` or `{ data, filename }`. */
  media: MediaInput;
};

/**
 * Parameters of `messages.send`, with the API's own field names. The type rejects text without
 * `content`, media types without `media`, and both or neither of `sender_phone`/`sender_number_id`.
 */
export type SendMessageParams = SendTextParams | SendMediaParams;

/** A media file as a send's record describes it: never its bytes. */
export interface MediaDescription {
  /** The file name sent in the part. */
  readonly filename: string;
  /** The part's content type (`''` when it was left to be guessed). */
  readonly contentType: string;
  /** Its size in bytes, when known before sending. */
  readonly size: number | undefined;
}

/**
 * The parameters of a send as `SendOutcomeUnknownError.params` records them (media described, not
 * kept): what `messages.reconcile()` needs to look for the message.
 */
export interface SentParams {
  readonly sender_phone?: string | undefined;
  readonly sender_number_id?: number | undefined;
  readonly to_phone: string;
  readonly type: string;
  readonly content?: string | undefined;
  readonly media?: MediaDescription | undefined;
}
