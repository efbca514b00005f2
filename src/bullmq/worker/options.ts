import type { MessagingClient } from '../../index.js';
import { ValidationError } from '../../index.js';
import {
  checkConnection,
  checkName,
  checkOptionKeys,
  checkPrefix,
  laneRateIssue,
  OPTION_KEYS,
  objectIssue,
  retentionIssues,
  wholeIssue,
} from '../checks.js';
import type { MessagingWorkerOptions, TrackDeliveryOptions } from '../worker-types.js';

/** The message of every `ValidationError` of `new MessagingWorker()`. */
export const WORKER_OPTIONS = 'Invalid MessagingWorker options';
const WHAT = WORKER_OPTIONS;

/** Checks `new MessagingWorker()`'s options, every issue at once, before any connection opens. */
export function checkWorkerOptions(options: MessagingWorkerOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new ValidationError(
      WHAT,
      [{ path: '', message: "must be an object such as { connection, name: 'sms', client }" }],
      { code: 'validation.options' },
    );
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
  // Every number here reaches Lua, SQL or a timer: whole, within what each can hold (checks.ts).
  const whole = (path: string, value: unknown, unit: string, min = 1) => {
    const issue = wholeIssue(path, value, unit, min);
    if (issue) issues.push(issue);
  };
  whole('concurrency', options.concurrency, 'jobs');
  whole('lockDuration', options.lockDuration, 'ms');
  whole('stalledInterval', options.stalledInterval, 'ms');
  whole('clockSkewMs', options.clockSkewMs, 'ms', 0);
  // A nested object given as a number (`trackDelivery: 60_000`) would read as `{}`: all defaults.
  const given = (path: string, value: unknown, example: string): value is object => {
    const issue = objectIssue(path, value, example);
    if (issue) issues.push(issue);
    return value !== undefined && !issue;
  };
  const { rateLimit } = options;
  if (given('rateLimit', rateLimit, '{ requestsPerSecond: 50 }')) {
    const rps = rateLimit.requestsPerSecond;
    if (rps === undefined) issues.push({ path: 'rateLimit.requestsPerSecond', message: 'is required, e.g. 50' });
    else whole('rateLimit.requestsPerSecond', rps, 'requests a second');
    const lane = (at: 'perSender' | 'perRecipient', key: string, example: string) => {
      const limit: unknown = rateLimit[at];
      const path = `rateLimit.${at}.${key}`;
      if (!given(`rateLimit.${at}`, limit, `{ ${key}: ${example} }`)) return;
      const value = (limit as Record<string, unknown>)[key];
      // A sender's rate may be below 1 (one every 2 s), as the client's lanes take it; an interval is whole ms.
      const issue =
        value === undefined
          ? { path, message: `is required, e.g. ${example}` }
          : at === 'perRecipient'
            ? wholeIssue(path, value, 'ms')
            : laneRateIssue(path, value);
      if (issue) issues.push(issue);
    };
    lane('perSender', 'requestsPerSecond', '10');
    lane('perRecipient', 'minInterval', '1000');
  }
  const track: TrackDeliveryOptions | undefined = options.trackDelivery;
  if (given('trackDelivery', track, "{ until: 'delivered' }")) {
    if (track.until !== undefined && track.until !== 'delivered' && track.until !== 'read') {
      issues.push({
        path: 'trackDelivery.until',
        message: `must be 'delivered' or 'read', got ${String(track.until)}`,
      });
    }
    // Delays of a job (a `bigint` of ms on PostgreSQL).
    whole('trackDelivery.timeout', track.timeout, 'ms');
    whole('trackDelivery.interval', track.interval, 'ms');
  }
  issues.push(...retentionIssues(options.retention));
  if (issues.length > 0) throw new ValidationError(WHAT, issues, { code: 'validation.options' });
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
