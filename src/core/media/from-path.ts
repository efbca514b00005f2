import { basename } from 'node:path';
import { type Issue, ValidationError } from '../../errors.js';
import { checkKnownKeys, type KnownKeys } from '../../internal/values/checks.js';
import { readFields } from '../../internal/values/input.js';
import { type MediaFromPathOptions, PathMedia } from '../../types/media.js';
import { contentTypeProblem, filenameProblem, guessContentType } from './media-label.js';

export { type MediaFromPathOptions, type MediaInput, type NamedMedia, PathMedia } from '../../types/media.js';

const MEDIA_FROM_PATH_OPTIONS: KnownKeys<MediaFromPathOptions> = { filename: true, contentType: true };

/**
 * Streams a file from disk as a message's media, without reading it into memory. The file is
 * opened when the request is written; `send` checks it exists before any network I/O.
 * A path that is not a non-empty string, or a name or content type with control characters,
 * throws `ValidationError` at once.
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
  const issues: Issue[] = [];
  if (typeof path !== 'string' || path === '') {
    const got = path === '' ? 'an empty string' : path === null ? 'null' : typeof path;
    issues.push({
      path: 'path',
      message: `must be the file's path as a non-empty string, e.g. './photo.jpg', got ${got}`,
    });
  }
  const fields = readFields(
    options,
    'Invalid mediaFromPath options',
    "{ filename: 'photo.jpg', contentType: 'image/jpeg' }",
  );
  checkKnownKeys(fields, MEDIA_FROM_PATH_OPTIONS, ' of mediaFromPath', issues);
  if (issues.length > 0) throw new ValidationError('Invalid mediaFromPath arguments', issues);
  const { filename = basename(path), contentType = '' } = fields as MediaFromPathOptions;
  const badName = filenameProblem(filename);
  const badType = contentTypeProblem(contentType);
  if (badName) issues.push({ path: 'filename', message: badName });
  if (badType) issues.push({ path: 'contentType', message: badType });
  if (issues.length > 0) throw new ValidationError('Invalid mediaFromPath arguments', issues);
  return new PathMedia(path, filename, contentType || guessContentType(filename));
}
