import type { SendMessageParams, SentParams } from '../../index.js';
import { type MediaInput, PathMedia, ValidationError } from '../../index.js';
import { issuesFromZod, readFields } from '../../seam/option-checks.js';
import { loadSchemas } from '../../seam/schemas.js';
import type { StoredMedia, StoredParams } from '../store/types.js';

/** The largest media file stored in a job: Redis holds it (base64) until the send ends. */
export const MAX_STORED_MEDIA_BYTES = 1024 * 1024;

export type { StoredMedia, StoredParams } from '../store/types.js';

const WHAT = 'Invalid send parameters';

/**
 * Checks send parameters at enqueue time exactly as `messages.send` does (the same guard and the
 * same schema), then turns them into what a job can hold. Media must survive a trip through
 * Redis and be readable by any worker, so it is a `mediaFromPath(path)` (the path is stored; every
 * worker must see the same file: shared storage) or bytes up to 1 MB (stored as base64).
 */
export async function storedParams(params: unknown): Promise<StoredParams> {
  const fields = readFields(params, WHAT, '{ sender_phone, to_phone, type, content }');
  const { sendMessageParamsSchema } = await loadSchemas();
  const checked = sendMessageParamsSchema.safeParse(fields);
  if (!checked.success) throw new ValidationError(WHAT, issuesFromZod(checked.error));
  const { media, ...rest } = checked.data as SendMessageParams & { media?: MediaInput };
  if (media === undefined) return rest;
  return { ...rest, media: storedMedia(media) };
}

function storedMedia(media: MediaInput): StoredMedia {
  if (media instanceof PathMedia) return { path: media.path, filename: media.filename, contentType: media.contentType };
  const named = media as { data?: unknown; filename?: string; contentType?: string };
  const data = named.data;
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) {
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    if (bytes.byteLength > MAX_STORED_MEDIA_BYTES) {
      refuse(
        `is ${bytes.byteLength} bytes; a queued send holds at most ${MAX_STORED_MEDIA_BYTES} bytes of media in Redis: write the file to storage every worker can read and pass mediaFromPath(path)`,
      );
    }
    const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
    return { base64, filename: named.filename ?? 'file', contentType: named.contentType ?? '' };
  }
  return refuse(
    'must be mediaFromPath(path) or { data: <Buffer or Uint8Array up to 1 MB>, filename } in a queued send: ' +
      'a stream (or Blob) can be read once, in this process only, and cannot be stored in the queue for a worker to send later (and again after a crash)',
  );
}

function refuse(message: string): never {
  throw new ValidationError(WHAT, [{ path: 'media', message }]);
}

/** The parameters of a stored send as `messages.send` takes them (media re-opened or decoded). */
export function sendParamsOf(stored: StoredParams): SendMessageParams {
  const { media, ...rest } = stored;
  if (media === undefined) return rest as SendMessageParams;
  const input: MediaInput =
    'path' in media
      ? new PathMedia(media.path, media.filename, media.contentType)
      : {
          data: Buffer.from(media.base64, 'base64'),
          filename: media.filename,
          ...(media.contentType ? { contentType: media.contentType } : {}),
        };
  return { ...rest, media: input } as SendMessageParams;
}

/** The parameters `messages.reconcile` compares (media described, never its bytes). */
export function reconcileParamsOf(stored: StoredParams): SentParams {
  const { media, ...rest } = stored;
  if (media === undefined) return rest;
  const size = 'base64' in media ? Buffer.byteLength(media.base64, 'base64') : undefined;
  return { ...rest, media: { filename: media.filename, contentType: media.contentType, size } };
}
