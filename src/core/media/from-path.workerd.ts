import { ValidationError } from '../../errors.js';
import type { MediaFromPathOptions, PathMedia } from '../../types/media.js';

export { type MediaFromPathOptions, type MediaInput, type NamedMedia, PathMedia } from '../../types/media.js';

/**
 * `mediaFromPath` in the Cloudflare Workers build (the `workerd` export condition): a Worker has
 * no file system of yours to read from, so a path is refused at once, saying what to pass instead.
 *
 * @example
 * ```ts
 * // In a Worker, pass the bytes instead:
 * media: { data: new Uint8Array(await request.arrayBuffer()), filename: 'receipt.pdf' }
 * ```
 */
export function mediaFromPath(_path: string, _options?: MediaFromPathOptions): PathMedia {
  throw new ValidationError('mediaFromPath cannot be used on Cloudflare Workers', [
    {
      path: 'path',
      message:
        'a Worker has no file system to read it from: pass the bytes ({ data, filename }), a Blob or File, or a ReadableStream (e.g. an R2 object body)',
    },
  ]);
}
