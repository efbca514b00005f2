/**
 * The one place a media send's input becomes a request body: the checked parameters give the
 * text fields, the `media` input gives one part (name, content type, size and a reader of its
 * bytes, whatever its kind), and `multipart.ts` encodes them.
 */
import { promises as fsp } from 'node:fs';
import { Readable } from 'node:stream';
import { ValidationError } from '../../errors.js';
import { type MediaInput, PathMedia } from '../../types/media.js';
import type { SentParams } from '../../types/send.js';
import type { RequestBody } from '../call/call-spec.js';
import { readFileChunks } from './file-chunks.js';
import { guessContentType, mediaLabel, mediaLabelProblem } from './media-label.js';
import { failureOf, isNodeReadable, readSource, watchStream, webStreamChunks } from './media-source.js';
import { type MediaPart, type MultipartFields, multipartBody } from './multipart.js';

/** The parameters of a media send after `messages.send` checked them: read from here only. */
export type CheckedMediaSend = Omit<SentParams, 'media'> & { readonly media: MediaInput };

/**
 * Builds the streamed multipart body of a media send from its checked parameters. A path is
 * only `stat`ed here (a missing file fails before any network I/O) and opened when the request
 * is written, once per attempt.
 */
export async function mediaSendBody(params: CheckedMediaSend): Promise<RequestBody> {
  const fields: [string, string][] = [];
  if (params.sender_phone !== undefined) fields.push(['sender_phone', params.sender_phone]);
  if (params.sender_number_id !== undefined) fields.push(['sender_number_id', String(params.sender_number_id)]);
  fields.push(['to_phone', params.to_phone], ['type', params.type]);
  if (params.content !== undefined) fields.push(['content', params.content]);
  const part = await mediaPart(params.media);
  const body = multipartBody(fields satisfies MultipartFields, part.part);
  if (body.kind !== 'stream') return body;
  return {
    ...body,
    // A source that already failed is not sent: the request would go out only to be cut off.
    open() {
      const failure = part.failure();
      if (failure) throw failure;
      return body.open();
    },
  };
}

/** A part and a way to ask whether its source has already failed. */
interface PreparedPart {
  readonly part: MediaPart;
  readonly failure: () => ValidationError | undefined;
}

function invalid(message: string): ValidationError {
  return new ValidationError('Invalid send parameters', [{ path: 'media', message }]);
}

/** Turns any accepted media input into a part. Each of the input's fields is read once. */
export async function mediaPart(media: MediaInput): Promise<PreparedPart> {
  const data = media instanceof Blob || isNodeReadable(media) || media instanceof PathMedia ? media : media.data;
  const declared =
    media instanceof Blob || isNodeReadable(media) || media instanceof PathMedia ? undefined : media.size;
  // Listen before the first await: a caller's stream may fail while the file below is stat'ed.
  const stream = data instanceof Readable ? data : undefined;
  if (stream) watchStream(stream);
  // An ended stream would go out as an empty file, silently.
  if (stream?.readableEnded)
    throw invalid('this stream was already read to its end: a stream can be sent once, pass a new one');
  if (declared !== undefined && !(Number.isSafeInteger(declared) && declared >= 0)) {
    throw invalid('size changed after it was checked: give a fixed integer >= 0');
  }
  const label = mediaLabel(media);
  // Checked again on the values read here: a getter may answer differently than at the schema check.
  const problem = mediaLabelProblem(label);
  if (problem) throw invalid(problem);
  const { filename } = label;
  const named = (type: string) => (label.contentType as string) || type || guessContentType(filename);
  const none = () => undefined;

  if (data instanceof PathMedia) {
    const stat = await statForUpload(data.path);
    if ('problem' in stat) throw invalid(stat.problem);
    const { path } = data;
    const read = () => readFileChunks(path);
    const part = { filename, contentType: named(''), size: stat.size, replayable: true };
    return { part: { ...part, content: () => readSource(read, stat.size) }, failure: none };
  }
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) {
    const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
    const part = { filename, contentType: named(''), size: bytes.byteLength, replayable: true };
    return { part: { ...part, content: () => readSource(() => [bytes], bytes.byteLength) }, failure: none };
  }
  if (data instanceof Blob) {
    const part = { filename, contentType: named(data.type), size: data.size, replayable: true };
    return {
      part: { ...part, content: () => readSource(() => webStreamChunks(data.stream()), data.size) },
      failure: none,
    };
  }
  const source = oneShot(data, filename);
  const failure = stream ? () => failureOf(stream) : none;
  const part = { filename, contentType: named(''), size: declared, replayable: false };
  return { part: { ...part, content: () => readSource(source, declared, failure) }, failure };
}

/** A caller's stream as a reader that can run once: a second read fails instead of sending an empty file. */
function oneShot(data: unknown, filename: string): () => AsyncIterable<unknown> {
  let used = false;
  return () => {
    if (used) throw new Error(`the media stream for '${filename}' was already read; a stream can be sent once`);
    used = true;
    if (data instanceof ReadableStream) return webStreamChunks(data);
    if (typeof data === 'object' && data !== null && Symbol.asyncIterator in data)
      return data as AsyncIterable<unknown>;
    throw new Error(`media.data is no longer bytes or a stream (got ${typeof data}); it changed after it was checked`);
  };
}

/** Size of a file on disk, or an explanation of why it cannot be sent. */
async function statForUpload(path: string): Promise<{ size: number } | { problem: string }> {
  try {
    const stat = await fsp.stat(path);
    if (!stat.isFile()) return { problem: `'${path}' is not a regular file` };
    return { size: stat.size };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { problem: `no file at '${path}'` };
    if (code === 'EACCES') return { problem: `'${path}' cannot be read (permission denied)` };
    return { problem: `'${path}' cannot be read (${code ?? String(error)})` };
  }
}
