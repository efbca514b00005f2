import { ValidationError } from '../../errors.js';
import type { DeliveryUpdate } from '../../types/many.js';
import { DELIVERY_STATUSES } from '../../types/message-log.js';
import { type RelaySummary, relayWebhooks } from '../../webhooks/relay.js';
import { parseDuration } from '../duration.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { createOutput } from '../output.js';
import { watchLogs } from '../watch-logs.js';
import { SECRET_ENV, type WebhookSecret, webhookSecret } from '../webhook-secret.js';
import type { Context } from './messages.js';

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
 * is the baseline: the history already there is not replayed. One line per event forwarded on
 * stdout; the endpoint's answers are counted in the summary printed at Ctrl-C (the relay reports
 * no answer one by one). Returns 130 after Ctrl-C.
 */
export async function listen(flags: ListenFlags, { client, out: given, signal }: Context): Promise<number> {
  // A stream of events: with --json too, one JSON document a line.
  const out = given.format === 'json' ? createOutput('ndjson') : given;
  const interval = parseDuration(flags.interval, '--interval');
  const only = eventTypesOf(flags.events);
  const secret = await webhookSecret(flags);
  const url = flags.forwardTo;
  let polled = false;

  async function* updates(): AsyncGenerator<DeliveryUpdate> {
    polled = true;
    const onFirstPage = () => out.note(readyLine(url, secret));
    for await (const change of watchLogs(client, { interval, signal, announceFirstPage: false, onFirstPage })) {
      const { log } = change;
      const status = log.delivery_status;
      const type = `message.${status}`;
      if (only && !only.includes(type)) continue;
      // The id relayWebhooks signs the event with (relay.ts): receivers drop duplicates by it.
      const webhookId = `msg_${log.id}_${status}`;
      out.value({ type, webhook_id: webhookId, log_id: log.id, status, url, log }, () =>
        [type.padEnd(17), webhookId, `-> ${url}`].join('  '),
      );
      yield { id: log.id, log, status };
    }
  }

  let summary: RelaySummary;
  try {
    summary = await relayWebhooks(updates(), {
      endpoints: [{ url, secret: secret.value }],
      allowInsecureHttp: flags.allowInsecureHttp === true,
      signal,
    });
  } catch (error) {
    // Thrown before the first read: the relay refused the URL or the secret, before any request.
    if (!polled && error instanceof ValidationError) throw usageErrorOf(error, secret);
    throw error;
  }
  const gone = summary.disabled.length > 0 ? ` ${url} answered 410 Gone: nothing more was sent to it.` : '';
  out.note(
    `Stopped: ${summary.events} events forwarded, ${summary.delivered} delivered, ${summary.gaveUp} gave up.${gone}`,
  );
  return signal.aborted ? EXIT.interrupted : EXIT.ok;
}

/** `--events a,b`: undefined for every type; a UsageError for an empty list or a type no log makes. */
function eventTypesOf(text: string | undefined): readonly string[] | undefined {
  if (text === undefined) return undefined;
  const types = text
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  const known = EVENT_TYPES.join(', ');
  if (types.length === 0) throw new UsageError(`--events takes a comma-separated list of ${known}; got '${text}'`);
  const unknown = types.filter((type) => !EVENT_TYPES.includes(type));
  if (unknown.length > 0) {
    throw new UsageError(`--events: unknown event type ${unknown.map((t) => `'${t}'`).join(', ')}; use ${known}`);
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
