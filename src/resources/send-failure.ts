import { mayHaveBeenProcessed } from '../core/call/classify.js';
import { isFileReadStream, mediaLabel } from '../core/media/media-label.js';
import { ResponseValidationError, SendOutcomeUnknownError } from '../errors.js';
import { type MediaInput, PathMedia } from '../types/media.js';
import type { SendMessageParams, SentParams } from '../types/send.js';

/** A send as it went out: its checked parameters and when it started. */
export interface SentRecord {
  readonly checked: SendMessageParams;
  readonly startedAt: number;
}

/**
 * What a failed send tells its caller. A send that may have gone out is not a plain network or
 * server error: `SendOutcomeUnknownError`. A 2xx whose body cannot be read means the service
 * accepted the message: the error says so, so that nobody sends it again.
 */
export function sendFailure(error: unknown, sent: SentRecord | undefined): unknown {
  if (mayHaveBeenProcessed(error)) {
    // Described only now: a send that succeeds pays nothing for the record of one that did not.
    const record = sent && { params: describeSend(sent.checked), startedAt: new Date(sent.startedAt) };
    return new SendOutcomeUnknownError(error as Error, record);
  }
  if (error instanceof ResponseValidationError && error.status >= 200 && error.status < 300) {
    error.message += `\nThe service accepted the message (HTTP ${error.status}): it was sent, do not send it again.`;
  }
  return error;
}

/** A send's checked parameters as its error records them: media described, never kept. */
function describeSend(params: SendMessageParams): SentParams {
  const { media, ...rest } = params as SendMessageParams & { media?: MediaInput };
  const fields = rest as Omit<SentParams, 'media'>;
  if (media === undefined) return fields;
  const { filename, contentType } = mediaLabel(media);
  const type = typeof contentType === 'string' ? contentType : '';
  return { ...fields, media: { filename, contentType: type, size: mediaSize(media) } };
}

/** The size of a media input when it is known before sending. */
function mediaSize(media: MediaInput): number | undefined {
  if (media instanceof Blob) return media.size;
  if (media instanceof PathMedia || isFileReadStream(media)) return undefined;
  const { data, size } = media;
  if (size !== undefined) return size;
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) return data.byteLength;
  return data instanceof Blob ? data.size : undefined;
}
