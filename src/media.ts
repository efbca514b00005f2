import { promises as fsp, type ReadStream } from 'node:fs';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Bytes or a stream together with the file name the service should see.
 *
 * @example
 * ```ts
 * await client.messages.send({ ..., type: 'image', media: { data: buffer, filename: 'photo.jpg' } })
 * ```
 */
export interface NamedMedia {
  /** The file's content. A stream is read once: a send that failed part-way cannot be retried with it. */
  data: Uint8Array | ArrayBuffer | Blob | Readable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
  /** The file name sent in the multipart part, e.g. `photo.jpg`. */
  filename: string;
  /**
   * The part's content type.
   * @default guessed from the file name's extension, else `application/octet-stream`
   */
  contentType?: string;
  /**
   * The size in bytes, for a stream whose size you know: lets the request carry a `Content-Length`.
   * @default the byte length of bytes and Blobs; unknown for streams (the body is then sent chunked)
   */
  size?: number;
}

/**
 * A file on disk, opened only when the request is written and re-opened for a retry.
 * Create it with {@link mediaFromPath}.
 */
export class PathMedia {
  /** The file's path, as given. */
  readonly path: string;
  /** The file name sent in the multipart part. */
  readonly filename: string;
  /** The part's content type. */
  readonly contentType: string;

  /**
   * Prefer {@link mediaFromPath}, which guesses the name and content type and checks the file
   * exists before any network I/O.
   */
  constructor(path: string, filename: string, contentType: string) {
    this.path = path;
    this.filename = filename;
    this.contentType = contentType;
  }
}

/** Options of {@link mediaFromPath}. */
export interface MediaFromPathOptions {
  /**
   * The file name the service should see.
   * @default the path's base name
   */
  filename?: string;
  /**
   * The part's content type.
   * @default guessed from the file name's extension, else `application/octet-stream`
   */
  contentType?: string;
}

/**
 * Streams a file from disk as a message's media, without reading it into memory. The file is
 * opened when the request is written; it is checked for existence before any network I/O.
 *
 * @example
 * ```ts
 * await client.messages.send({
 *   sender_phone: '+15550000001', to_phone: '+15550000002',
 *   type: 'image', content: 'Your receipt', media: mediaFromPath('./receipt.png'),
 * })
 * ```
 */
export function mediaFromPath(path: string, options: MediaFromPathOptions = {}): PathMedia {
  const filename = options.filename ?? basename(path);
  return new PathMedia(path, filename, options.contentType ?? guessContentType(filename));
}

/**
 * What `media` accepts: a `File` or `Blob`, an `fs.ReadStream` (its file name is taken from its
 * path), `mediaFromPath(path)`, or `{ data, filename }` for bytes and other streams.
 */
export type MediaInput = Blob | ReadStream | PathMedia | NamedMedia;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  wav: 'audio/wav',
  amr: 'audio/amr',
  webm: 'audio/webm',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  zip: 'application/zip',
};

/** A content type from a file name's extension; `application/octet-stream` when unknown. */
export function guessContentType(filename: string): string {
  const dot = filename.lastIndexOf('.');
  const ext = dot < 0 ? '' : filename.slice(dot + 1).toLowerCase();
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

/** Size of a file on disk, or an explanation of why it cannot be sent. */
export async function statForUpload(path: string): Promise<{ size: number } | { problem: string }> {
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
