import { ReadStream } from 'node:fs';
import { basename } from 'node:path';
import { type FileReadStream, type MediaInput, PathMedia } from '../../types/media.js';

/**
 * Whether `media` is an `fs.ReadStream`. A guard rather than `instanceof` at each use: the public
 * type names the stream by its shape (no `@types/node` in the declarations), and only a guard
 * narrows such a type away.
 */
export function isFileReadStream(media: MediaInput): media is FileReadStream {
  return media instanceof ReadStream;
}

/** The file name and content type a media part carries in its headers. */
export interface MediaLabel {
  readonly filename: string;
  /** `''` when the caller gave none: it is then guessed from the file name. */
  readonly contentType: unknown;
}

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

/**
 * The label of a media input, read once from it. A `Blob` is named `blob`, an `fs.ReadStream`
 * by its path's base name; a `Blob`'s own type is always safe (the platform empties a type with
 * characters outside printable ASCII).
 */
export function mediaLabel(media: MediaInput): MediaLabel {
  if (media instanceof PathMedia) return { filename: media.filename, contentType: media.contentType };
  if (media instanceof File) return { filename: media.name || 'blob', contentType: media.type };
  if (media instanceof Blob) return { filename: 'blob', contentType: media.type };
  if (isFileReadStream(media)) return { filename: basename(String(media.path)), contentType: '' };
  return { filename: media.filename, contentType: media.contentType ?? '' };
}

/**
 * Why a file name or content type cannot go into a multipart part's headers, or undefined when
 * it can. Both are written into the part's header lines, so a line break would let the value
 * add headers or parts of its own: every control character is refused, as header values are.
 */
export function mediaLabelProblem({ filename, contentType }: MediaLabel): string | undefined {
  return filenameProblem(filename) ?? contentTypeProblem(contentType);
}

/** Why `filename` cannot name a part, or undefined. */
export function filenameProblem(filename: unknown): string | undefined {
  if (typeof filename !== 'string' || filename === '') return 'the file name must be a non-empty string';
  if (!/\p{Cc}/u.test(filename)) return undefined;
  return `the file name ${JSON.stringify(filename)} contains control characters (line breaks, tabs, NUL...): pass a plain name, e.g. { data, filename: 'photo.jpg' } or mediaFromPath(path, { filename: 'photo.jpg' })`;
}

/** Why `contentType` cannot be a part's content type, or undefined; `''` means "guess it". */
export function contentTypeProblem(contentType: unknown): string | undefined {
  if (typeof contentType !== 'string')
    return `contentType must be a string such as 'image/png', got ${typeof contentType}`;
  if (/^[\x20-\x7e]*$/.test(contentType)) return undefined;
  return `contentType ${JSON.stringify(contentType)} must be printable ASCII without control characters (line breaks, tabs, NUL...), e.g. 'image/png'`;
}
