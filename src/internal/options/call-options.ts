import { type Issue, ValidationError } from '../../errors.js';
import type { RequestOptions, SendOptions, UploadProgress } from '../../types/options.js';
import { checkHeaders } from '../requests/headers.js';
import { check, checkKnownKeys, type KnownKeys } from '../values/checks.js';
import { readFields } from '../values/input.js';

const REQUEST_OPTIONS: KnownKeys<RequestOptions> = { signal: true, timeout: true, maxRetries: true, headers: true };
const SEND_OPTIONS: KnownKeys<SendOptions> = { ...REQUEST_OPTIONS, onUploadProgress: true };

/** A call's options once checked: headers lower-cased, nothing read twice from the caller's object. */
export interface CallOptions {
  readonly signal: AbortSignal | undefined;
  readonly timeout: number | undefined;
  readonly maxRetries: number | undefined;
  /** The call's own headers, checked, or undefined when it gave none. */
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly onUploadProgress: ((progress: UploadProgress) => void) | undefined;
}

const NO_OPTIONS: CallOptions = Object.freeze({
  signal: undefined,
  timeout: undefined,
  maxRetries: undefined,
  headers: undefined,
  onUploadProgress: undefined,
});

/**
 * Checks the per-call options a caller gave, before any I/O: unknown keys are refused as they are
 * on the client (`{ timout: 5 }` is a typo, not a no-op). `withUpload` allows `onUploadProgress`,
 * which only calls with a request body take. Free when no options were given.
 */
export function checkCallOptions(given: unknown, withUpload: boolean): CallOptions {
  if (given === undefined) return NO_OPTIONS;
  const what = 'Invalid request options';
  const options = readFields(given, what, '{ timeout: 5_000, signal }');
  const issues: Issue[] = [];
  checkKnownKeys(options, withUpload ? SEND_OPTIONS : REQUEST_OPTIONS, ' of this call', issues);
  const { signal, timeout, maxRetries, headers, onUploadProgress } = options;
  check.duration(timeout, 'timeout', issues);
  check.maxRetries(maxRetries, 'maxRetries', issues);
  check.signal(signal, 'signal', issues);
  check.callback(onUploadProgress, 'onUploadProgress', issues);
  const checkedHeaders = headers === undefined ? undefined : checkHeaders(headers, 'headers', issues);
  if (issues.length > 0) throw new ValidationError(what, issues);
  return {
    signal: signal as AbortSignal | undefined,
    timeout: timeout as number | undefined,
    maxRetries: maxRetries as number | undefined,
    headers: checkedHeaders,
    onUploadProgress: onUploadProgress as CallOptions['onUploadProgress'],
  };
}
