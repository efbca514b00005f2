import { createReadStream, ReadStream } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { type FileLike, FormDataEncoder } from 'form-data-encoder';
import { FormData } from 'formdata-node';
import { ValidationError } from '../errors.js';
import { guessContentType, type MediaInput, PathMedia, statForUpload } from '../media.js';
import type { SendMediaParams } from '../types/send.js';
import type { RequestBody } from './executor.js';

/**
 * Read size for files from disk. Node's 64 KiB default peaked about 41 MB above baseline for a
 * 200 MB upload (the read buffers outlive their write until GC); 48 KiB peaked about 32 MB at the
 * same speed, and 16 KiB 15 MB at half the speed (`npm run bench`, section 3).
 */
const FILE_CHUNK_BYTES = 48 * 1024;

/** A media source as the encoder reads it, plus whether it can be read a second time. */
interface PreparedFile {
  readonly file: FileLike;
  readonly replayable: boolean;
}

/**
 * Builds the streamed `multipart/form-data` body of a media send. Files are not read here: a
 * path is only `stat`ed (so a missing file fails before any network I/O) and opened when the
 * request is written, once per attempt.
 */
export async function multipartBody(params: SendMediaParams): Promise<RequestBody> {
  const prepared = await prepareFile(params.media);
  return {
    kind: 'stream',
    replayable: prepared.replayable,
    open() {
      const form = new FormData();
      if (params.sender_phone !== undefined) form.append('sender_phone', params.sender_phone);
      if (params.sender_number_id !== undefined) form.append('sender_number_id', String(params.sender_number_id));
      form.append('to_phone', params.to_phone);
      form.append('type', params.type);
      if (params.content !== undefined) form.append('content', params.content);
      form.append('media', prepared.file);
      const encoder = new FormDataEncoder(form);
      const headers: Record<string, string> = { 'content-type': encoder.contentType };
      // Known sizes give a Content-Length; a stream of unknown size is sent chunked.
      if (encoder.contentLength !== undefined) headers['content-length'] = encoder.contentLength;
      return { stream: Readable.from(encoder.encode(), { objectMode: false }), headers };
    },
  };
}

function fileLike(name: string, type: string, size: number, stream: FileLike['stream']): FileLike {
  return {
    name,
    type: type || guessContentType(name),
    size,
    lastModified: Date.now(),
    stream,
    [Symbol.toStringTag]: 'File',
  };
}

/** Wraps a one-shot source so that a second read fails loudly instead of sending an empty file. */
function once<T>(source: T, name: string): () => T {
  let used = false;
  return () => {
    if (used) throw new Error(`The media stream for '${name}' was already read; a stream can be sent once.`);
    used = true;
    return source;
  };
}

async function prepareFile(media: MediaInput): Promise<PreparedFile> {
  if (media instanceof PathMedia) {
    const stat = await statForUpload(media.path);
    if ('problem' in stat)
      throw new ValidationError('Invalid send parameters', [{ path: 'media', message: stat.problem }]);
    return {
      file: fileLike(media.filename, media.contentType, stat.size, () =>
        createReadStream(media.path, { highWaterMark: FILE_CHUNK_BYTES }),
      ),
      replayable: true,
    };
  }
  if (media instanceof Blob) {
    const name = media instanceof File && media.name ? media.name : 'blob';
    return { file: fileLike(name, media.type, media.size, () => media.stream()), replayable: true };
  }
  if (media instanceof ReadStream) {
    const name = basename(String(media.path));
    return { file: fileLike(name, '', Number.NaN, once(media, name)), replayable: false };
  }
  const { data, filename, contentType = '', size } = media;
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) {
    const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
    return {
      file: fileLike(filename, contentType, bytes.byteLength, () => Readable.from([bytes], { objectMode: false })),
      replayable: true,
    };
  }
  if (data instanceof Blob) {
    return { file: fileLike(filename, contentType || data.type, data.size, () => data.stream()), replayable: true };
  }
  const stream =
    data instanceof ReadableStream
      ? Readable.fromWeb(data as import('node:stream/web').ReadableStream<Uint8Array>)
      : data;
  return { file: fileLike(filename, contentType, size ?? Number.NaN, once(stream, filename)), replayable: false };
}
