import type { Log } from '../../internal/runtime/log.js';
import { describeValue } from '../../internal/values/describe-value.js';
import type { UploadProgress } from '../../types/options.js';

/** Turns byte counts into `{ loaded, total }` reports; a throwing callback is logged, never fatal to the upload. */
export function progressCounter(
  report: (progress: UploadProgress) => void,
  headers: Record<string, string>,
  log: Log,
): (bytes: number) => void {
  const length = headers['content-length'];
  const total = length === undefined ? undefined : Number(length);
  let loaded = 0;
  let warned = false;
  return (bytes) => {
    loaded += bytes;
    try {
      report({ loaded, total });
    } catch (error) {
      if (!warned) log.warn?.('onUploadProgress threw; the upload goes on', { error: describeValue(error) });
      warned = true;
    }
  };
}
