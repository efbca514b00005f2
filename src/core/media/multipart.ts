import { Readable } from 'node:stream';
import { type FileLike, FormDataEncoder } from 'form-data-encoder';
import { FormData } from 'formdata-node';
import type { RequestBody } from '../call/call-spec.js';

/** A media part, ready to encode: checked label, known size, and a reader of its bytes. */
export interface MediaPart {
  /** The part's file name: checked, no control characters. */
  readonly filename: string;
  /** The part's content type: checked, printable ASCII. */
  readonly contentType: string;
  /** The byte length, when known: the body then carries a `Content-Length`. */
  readonly size: number | undefined;
  /** False for one-shot sources (a caller's stream): such a body is never sent twice. */
  readonly replayable: boolean;
  /** The bytes, read afresh for each attempt. */
  content(): AsyncIterable<Uint8Array>;
}

/** The text fields of the form, in order, as name and value. */
export type MultipartFields = readonly (readonly [name: string, value: string])[];

/**
 * Encodes text fields and one `media` part as a streamed `multipart/form-data` body. It only
 * encodes what it is given: the fields are the checked parameters and the part is prepared
 * (and checked) by `media-part.ts`. Nothing is read until the request is written, once per attempt.
 */
export function multipartBody(fields: MultipartFields, part: MediaPart): RequestBody {
  const file: FileLike = {
    name: part.filename,
    type: part.contentType,
    // NaN: the encoder then declares no length and the body is sent chunked.
    size: part.size ?? Number.NaN,
    lastModified: 0,
    stream: () => part.content(),
    [Symbol.toStringTag]: 'File',
  };
  return {
    kind: 'stream',
    replayable: part.replayable,
    open() {
      const form = new FormData();
      for (const [name, value] of fields) form.append(name, value);
      form.append('media', file);
      const encoder = new FormDataEncoder(form);
      const headers: Record<string, string> = { 'content-type': encoder.contentType };
      if (encoder.contentLength !== undefined) headers['content-length'] = encoder.contentLength;
      return { stream: Readable.from(encoder.encode(), { objectMode: false }), headers };
    },
  };
}
