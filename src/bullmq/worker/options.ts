import type { MessagingClient } from '../../client.js';
import { ValidationError } from '../../errors.js';
import { checkConnection, checkName, checkOptionKeys, checkPrefix, OPTION_KEYS, positiveIssue } from '../checks.js';
import type { MessagingWorkerOptions, TrackDeliveryOptions } from './worker-types.js';

/** The message of every `ValidationError` of `new MessagingWorker()`. */
export const WORKER_OPTIONS = 'Invalid MessagingWorker options';
const WHAT = WORKER_OPTIONS;

/** Checks `new MessagingWorker()`'s options, every issue at once, before any connection opens. */
export function checkWorkerOptions(options: MessagingWorkerOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new ValidationError(WHAT, [
      { path: '', message: "must be an object such as { connection, name: 'sms', client }" },
    ]);
  }
  checkOptionKeys(options, OPTION_KEYS.worker, WHAT);
  checkConnection(options.connection, WHAT);
  checkName(options.name, WHAT);
  checkPrefix(options.prefix, options.connection, WHAT);
  const issues: { path: string; message: string }[] = [];
  // Checked by shape, not `instanceof`: importing the client's class here would pull the whole
  // SDK into a chunk shared with this entry, and the main entry would load it through that chunk.
  if (!isMessagingClient(options.client)) {
    issues.push({ path: 'client', message: 'must be a MessagingClient (new MessagingClient({ baseUrl, apiKey }))' });
  }
  const positive = (path: string, value: unknown, integer: boolean) => {
    const issue = positiveIssue(path, value, integer);
    if (issue) issues.push(issue);
  };
  positive('concurrency', options.concurrency, true);
  positive('lockDuration', options.lockDuration, true);
  positive('stalledInterval', options.stalledInterval, true);
  const skew = options.clockSkewMs;
  if (skew !== undefined && !(typeof skew === 'number' && Number.isFinite(skew) && skew >= 0)) {
    issues.push({ path: 'clockSkewMs', message: `must be a number of ms >= 0, got ${String(skew)}` });
  }
  const rps = options.rateLimit?.requestsPerSecond;
  if (options.rateLimit !== undefined && !(typeof rps === 'number' && rps >= 1 && Number.isFinite(rps))) {
    issues.push({ path: 'rateLimit.requestsPerSecond', message: `must be a number >= 1, got ${String(rps)}` });
  }
  const { perSender, perRecipient } = options.rateLimit ?? {};
  const lane = (given: object | undefined, path: string, value: unknown, integer: boolean) => {
    if (given === undefined) return;
    if (value === undefined) issues.push({ path, message: `is required, e.g. ${integer ? '1000' : '10'}` });
    else positive(path, value, integer);
  };
  lane(perSender, 'rateLimit.perSender.requestsPerSecond', perSender?.requestsPerSecond, false);
  lane(perRecipient, 'rateLimit.perRecipient.minInterval', perRecipient?.minInterval, true);
  const track: TrackDeliveryOptions | undefined = options.trackDelivery;
  if (track !== undefined) {
    if (track.until !== undefined && track.until !== 'delivered' && track.until !== 'read') {
      issues.push({
        path: 'trackDelivery.until',
        message: `must be 'delivered' or 'read', got ${String(track.until)}`,
      });
    }
    positive('trackDelivery.timeout', track.timeout, false);
    positive('trackDelivery.interval', track.interval, false);
  }
  if (issues.length > 0) throw new ValidationError(WHAT, issues);
}

/** A `MessagingClient` as the worker uses it: `withOptions` and `messages.send`/`reconcile`. */
function isMessagingClient(value: unknown): value is MessagingClient {
  const client = value as { withOptions?: unknown; messages?: { send?: unknown; reconcile?: unknown } } | null;
  return (
    typeof client?.withOptions === 'function' &&
    typeof client.messages?.send === 'function' &&
    typeof client.messages.reconcile === 'function'
  );
}
