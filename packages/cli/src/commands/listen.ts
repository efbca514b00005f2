import type { DeliveryUpdate } from 'tenant-messaging';
import { DELIVERY_STATUSES, ValidationError } from 'tenant-messaging';
import { type RelaySummary, relayWebhooks, type WebhookAttempt } from 'tenant-messaging/webhooks';
import { createOutput } from '../output/output.js';
import { parseDuration } from '../shell/duration.js';
import { EXIT, UsageError } from '../shell/exit-codes.js';
import { readerGone, stopCodeOf } from '../shell/interrupt.js';
import { quote } from '../shell/secrets.js';
import { SECRET_ENV, type WebhookSecret, webhookSecret } from '../shell/webhook-secret.js';
import type { Context } from './messages.js';
import { watchLogs } from './watch-logs.js';

export interface ListenFlags {
  readonly forwardTo: string;
  readonly secretFile?: string;
  /** Refused (see webhook-secret.ts): declared so that it is caught rather than unknown. */
  readonly secret?: string;
  readonly events?: string;
  readonly interval: string;
  readonly allowInsecureHttp?: boolean;
}

/** The event types a log's `delivery_status` makes: the ones `--events` may name. */
const EVENT_TYPES: readonly string[] = DELIVERY_STATUSES.map((status) => `message.${status}`);

/**
 * `listen --forward-to <url>`: what `tail --follow` sees, from the moment it starts, sent to `url`
 * as signed Standard Webhooks events by `relayWebhooks`: a log that appears is `message.<its
 * status>`, each later change of a log's delivery status is `message.<new status>`. The first read
 * is the baseline: the history already there is not replayed. One line per attempt on stdout,
 * with the endpoint's answer. Returns 130 after Ctrl-C, and 1 when the endpoint answered 410 Gone
 * (it is then disabled, so the command stops).
 */
export async function listen(flags: ListenFlags, { client, out: given, signal }: Context): Promise<number> {
  // A stream of events: with --json too, one JSON document a line.
  const out = given.format === 'json' ? createOutput('ndjson') : given;
  const interval = parseDuration(flags.interval, '--interval');
  const only = eventTypesOf(flags.events);
  const secret = await webhookSecret(flags);
  const url = flags.forwardTo;
  let polled = false;
  // A 410 ends the command: the one endpoint is gone, so nothing more would be forwarded.
  const stop = new AbortController();
  const stopped = AbortSignal.any([signal, stop.signal]);

  async function* updates(): AsyncGenerator<DeliveryUpdate> {
    polled = true;
    // The URL as it may be shown: a token in its query stays out of the terminal and CI logs.
    const onFirstPage = () => out.note(readyLine(shownUrl(url), secret));
    for await (const change of watchLogs(client, {
      interval,
      signal: stopped,
      announceFirstPage: false,
      onFirstPage,
    })) {
      const { log } = change;
      const status = log.delivery_status;
      if (only && !only.includes(`message.${status}`)) continue;
      yield { id: log.id, log, status };
    }
  }

  /** One line per attempt, as `stripe listen` prints them: the event, then the endpoint's answer. */
  const onAttempt = (attempt: WebhookAttempt) => {
    if (attempt.outcome === 'disabled') stop.abort();
    const answer = attempt.status ?? attempt.failure;
    out.value(
      {
        type: attempt.type,
        webhook_id: attempt.webhookId,
        url: attempt.url,
        status: attempt.status ?? null,
        ...(attempt.failure ? { failure: attempt.failure } : {}),
        outcome: attempt.outcome,
      },
      () =>
        [
          attempt.type.padEnd(17),
          attempt.webhookId,
          `-> ${answer}${attempt.outcome === 'delivered' ? '' : ` (${attempt.outcome})`}`,
        ].join('  '),
    );
  };

  let summary: RelaySummary;
  try {
    summary = await relayWebhooks(updates(), {
      endpoints: [{ url, secret: secret.value }],
      allowInsecureHttp: flags.allowInsecureHttp === true,
      signal: stopped,
      onAttempt,
    });
  } catch (error) {
    // Thrown before the first read: the relay refused the URL or the secret, before any request.
    if (!polled && error instanceof ValidationError) throw usageErrorOf(error, secret);
    throw error;
  }
  // Stdout's reader gone (`| head`): it had what it wanted; nothing to say.
  if (readerGone(signal)) return EXIT.ok;
  const counts = `${summary.events} events forwarded, ${summary.delivered} delivered, ${summary.gaveUp} gave up.`;
  if (summary.disabled.length > 0) {
    out.note(`Stopped: ${shownUrl(url)} answered 410 Gone, so nothing more is sent to it. ${counts}`);
    return EXIT.failed;
  }
  out.note(`Stopped: ${counts}`);
  return signal.aborted ? stopCodeOf(signal) : EXIT.ok;
}

/** `--events a,b`: undefined for every type; a UsageError for an empty list or a type no log makes. */
function eventTypesOf(text: string | undefined): readonly string[] | undefined {
  if (text === undefined) return undefined;
  const types = text
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  const known = EVENT_TYPES.join(', ');
  if (types.length === 0) throw new UsageError(`--events takes a comma-separated list of ${known}; got ${quote(text)}`);
  const unknown = types.filter((type) => !EVENT_TYPES.includes(type));
  if (unknown.length > 0) {
    throw new UsageError(`--events: unknown event type ${unknown.map((t) => quote(t)).join(', ')}; use ${known}`);
  }
  return types;
}

/** The line that says listening has begun: the secret itself only when it was made here. */
function readyLine(url: string, secret: WebhookSecret): string {
  return secret.source === 'generated'
    ? `Ready. Forwarding to ${url}. Your webhook signing secret is ${secret.value} (set ${SECRET_ENV} to keep it)`
    : `Ready. Forwarding to ${url}, signed with the secret from ${secret.name}.`;
}

/** The relay's refusal in the command line's words: its option names become the flags that set them. */
function usageErrorOf(error: ValidationError, secret: WebhookSecret): UsageError {
  const lines = error.issues.map((issue) => {
    const what = issue.path.endsWith('.url')
      ? '--forward-to'
      : issue.path.endsWith('.secret')
        ? secret.name
        : issue.path;
    return `${what}: ${issue.message.replace('allowInsecureHttp: true', '--allow-insecure-http')}`;
  });
  return new UsageError(lines.join('; '), { cause: error });
}

/**
 * The endpoint as the command prints it: its origin and path. Its credentials, query and fragment
 * may hold a token, and the relay's own reports show it the same way.
 */
function shownUrl(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.origin}${parsed.pathname}` : '(not a valid URL)';
}
