import type { MessageLog, MessagingClient, SendMessageParams } from 'tenant-messaging';
import { DeliveryTimeoutError, MessagingError, mediaFromPath, SendOutcomeUnknownError } from 'tenant-messaging';
import { plainMessage } from 'tenant-messaging-bin-kit';
import type { Output } from '../output/output.js';
import { parseCount, parseDuration } from '../shell/duration.js';
import { EXIT, SentThenError, UsageError } from '../shell/exit-codes.js';
import { stopOf } from '../shell/interrupt.js';
import { quote } from '../shell/secrets.js';

/** What every command is handed: its client, its output, and the signal Ctrl-C aborts. */
export interface Context {
  readonly client: MessagingClient;
  readonly out: Output;
  readonly signal: AbortSignal;
}

export interface SendFlags {
  readonly from: string;
  readonly to: string;
  readonly text?: string;
  readonly image?: string;
  readonly voice?: string;
  readonly document?: string;
  readonly caption?: string;
  readonly wait?: string | boolean;
  readonly timeout: string;
  readonly interval: string;
  readonly reconcile?: boolean;
}

/** The columns of a message log in a table. */
const LOG_COLUMNS = ['id', 'message_type', 'delivery_status', 'status', 'sent_at', 'content'] as const;

/**
 * A log id given on the command line (`get 42`, `wait 42`).
 *
 * @example
 * ```ts
 * logIdOf('42') // 42
 * ```
 */
export const logIdOf = (text: string): number => parseCount(text, 'the log id');

/** A log as one line for people. */
export const logLine = (log: MessageLog) => `message log ${log.id}: ${log.message_type}, ${log.delivery_status}`;

/**
 * The line of a wait that ended: the status reached, first. A wait for `delivered` also ends on
 * `read` (a read message was delivered), and then says so rather than calling the log delivered.
 *
 * @example
 * reachedLine('delivered', log) // "read (past delivered): message log 7: text, read"
 */
export const reachedLine = (until: 'delivered' | 'read', log: MessageLog) =>
  `${log.delivery_status === until ? until : `${log.delivery_status} (past ${until})`}: ${logLine(log)}`;

/** `--from`: a sender number's id (digits) or its phone. */
function senderOf(from: string): Pick<SendMessageParams, 'sender_phone' | 'sender_number_id'> {
  return /^\d+$/.test(from) ? { sender_number_id: Number(from) } : { sender_phone: from };
}

/** The send parameters the flags describe: exactly one of --text, --image, --voice, --document. */
export function sendParamsOf(flags: SendFlags): SendMessageParams {
  const kinds = (['text', 'image', 'voice', 'document'] as const).filter((kind) => flags[kind] !== undefined);
  if (kinds.length !== 1) {
    throw new UsageError(
      `give exactly one of --text, --image, --voice or --document${kinds.length ? `, not ${kinds.map((k) => `--${k}`).join(' and ')}` : ''}`,
    );
  }
  const sender = senderOf(flags.from);
  const kind = kinds[0] as 'text' | 'image' | 'voice' | 'document';
  if (kind === 'text') {
    if (flags.caption !== undefined)
      throw new UsageError('--caption goes with --image, --voice or --document, not --text');
    return { ...sender, to_phone: flags.to, type: 'text', content: flags.text as string } as SendMessageParams;
  }
  return {
    ...sender,
    to_phone: flags.to,
    type: kind,
    media: mediaFromPath(flags[kind] as string),
    ...(flags.caption === undefined ? {} : { content: flags.caption }),
  } as SendMessageParams;
}

/**
 * What became of `send --wait`'s wait: `wait` in the `--json` document, beside the log's fields.
 *
 * @example
 * ```json
 * { "id": 42, "wait": { "until": "delivered", "outcome": "timeout", "error": { "name": "DeliveryTimeoutError", "message": "..." } } }
 * ```
 */
export interface WaitOutcome {
  /**
   * The status waited for.
   *
   * @default 'delivered' (`--wait` alone)
   */
  readonly until: 'delivered' | 'read';
  /**
   * `reached`; `timeout` (not there within --timeout); `failed` (the log could not be read: a 403,
   * the network); `interrupted` (a stop signal came). The message was sent in every case.
   */
  readonly outcome: 'reached' | 'timeout' | 'failed' | 'interrupted';
  /**
   * What ended a wait that timed out or failed: its class and message.
   *
   * @default undefined (absent when the wait reached the status or was interrupted)
   */
  readonly error?: { readonly name: string; readonly message: string };
}

/**
 * `send`: one message; `--wait` follows it to delivered (or read); `--reconcile` settles an unknown
 * outcome. Once the message is accepted, every way out prints its log (with `--json`, on stdout,
 * with `wait` saying what became of the wait) and exits 0 or 5 (sent): a wait that failed is no
 * failed send, and neither the code nor the output may invite a second one.
 */
export async function send(flags: SendFlags, context: Context): Promise<number> {
  const { client, out, signal } = context;
  const params = sendParamsOf(flags);
  const until =
    flags.wait === 'read' ? 'read' : flags.wait === undefined || flags.wait === false ? undefined : 'delivered';
  if (typeof flags.wait === 'string' && flags.wait !== 'read' && flags.wait !== 'delivered') {
    throw new UsageError(`--wait takes delivered or read, got ${quote(flags.wait)}`);
  }
  const timing = {
    timeout: parseDuration(flags.timeout, '--timeout'),
    interval: parseDuration(flags.interval, '--interval'),
  };
  // A stop signal that came while the bin started: nothing is sent (main.ts exits 128 + its number).
  signal.throwIfAborted();
  let log: MessageLog;
  try {
    // Not aborted by Ctrl-C: a send in flight finishes and is reported (an aborted POST could
    // have reached the service with nobody told).
    log = await client.messages.send(params);
  } catch (error) {
    if (!(error instanceof SendOutcomeUnknownError) || !flags.reconcile || !error.params) throw error;
    out.note(`The outcome is unknown (${plainMessage(error).split('\n')[0]}). Searching the message logs for it...`);
    // A search that fails (a 403, the network, a stop signal) leaves the outcome unknown (exit 3).
    const result = await client.messages
      .reconcile(error.params, { since: error.startedAt, signal })
      .catch((searchError: unknown) => {
        out.note(
          `The search did not end (${searchError instanceof MessagingError ? plainMessage(searchError) : searchError instanceof Error ? searchError.message : String(searchError)}).`,
        );
        throw error;
      });
    if (result.status !== 'found') {
      out.value(
        result,
        () => `Not found in the logs (${result.status}): it may still arrive; do not send it again yet.`,
      );
      throw error;
    }
    log = result.log;
    out.note(`Found: the send reached the service as message log ${log.id}.`);
  }
  // Sent, even if a stop signal came meanwhile: the code says so (0), not the signal's.
  if (until === undefined) {
    out.value(log, () => `sent: ${logLine(log)}`);
    return EXIT.ok;
  }
  out.note(`sent: ${logLine(log)}`);
  try {
    const reached = await pollUntil(log, until, timing, context);
    out.value({ ...reached, wait: { until, outcome: 'reached' } satisfies WaitOutcome }, () =>
      reachedLine(until, reached),
    );
    return EXIT.ok;
  } catch (error) {
    const last = error instanceof DeliveryTimeoutError && isLog(error.lastLog) ? error.lastLog : log;
    const wait = waitOutcomeOf(until, error, signal);
    out.value({ ...last, wait }, () => `sent: ${logLine(last)} (${until} not confirmed: ${wait.outcome})`);
    throw new SentThenError([log.id], wait.outcome === 'interrupted' ? stopOf(signal) : error);
  }
}

/** The wait's outcome from what ended it. */
function waitOutcomeOf(until: 'delivered' | 'read', error: unknown, signal: AbortSignal): WaitOutcome {
  if (signal.aborted && error === signal.reason) return { until, outcome: 'interrupted' };
  const described =
    error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
  return { until, outcome: error instanceof DeliveryTimeoutError ? 'timeout' : 'failed', error: described };
}

/** A DeliveryTimeoutError's last log, when it is one (it carries what was seen, if anything). */
const isLog = (value: unknown): value is MessageLog =>
  typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'number';

/**
 * Polls `log` until `until`, with a status line for each status it moves through on the way:
 * the one already shown (the send's) and the one waited for (the result line says it) are not
 * repeated.
 */
function pollUntil(
  log: Pick<MessageLog, 'id'> & Partial<Pick<MessageLog, 'delivery_status'>>,
  until: 'delivered' | 'read',
  { timeout, interval }: { timeout: number; interval: number },
  { client, out, signal }: Context,
): Promise<MessageLog> {
  let shown: string | undefined = log.delivery_status;
  return client
    .waitForDelivery(log.id, {
      until,
      timeout,
      interval,
      signal,
      onUpdate: (seen) => {
        // A status that ends the wait is the result line's (`read` ends a wait for `delivered` too).
        const ends = seen.delivery_status === until || seen.delivery_status === 'read';
        if (seen.delivery_status === shown || ends) return;
        shown = seen.delivery_status;
        out.status(`message log ${log.id}: ${shown}`);
      },
    })
    .finally(() => out.endStatus());
}

/** `wait`: follows a log until `until`, with a live status line on a terminal. */
export async function follow(
  id: number,
  until: 'delivered' | 'read',
  timing: { timeout: number; interval: number },
  context: Context,
): Promise<void> {
  const log = await pollUntil({ id }, until, timing, context);
  context.out.value(log, () => reachedLine(until, log));
}

/** `get`: one log. */
export async function get(idText: string, { client, out, signal }: Context): Promise<void> {
  const log = await client.messages.get(logIdOf(idText), { signal });
  out.value(log, () => JSON.stringify(log, null, 2));
}

/** `list`: the newest logs, page after page up to `--limit`, optionally of one status. */
export async function list(flags: { status?: string; limit: string }, { client, out, signal }: Context): Promise<void> {
  const limit = parseCount(flags.limit, '--limit');
  const logs: MessageLog[] = [];
  // The spec shows no filter parameter for GET /messages: the status is matched here, page by page.
  for await (const log of client.messages.list({}, { signal })) {
    if (flags.status === undefined || log.delivery_status === flags.status) logs.push(log);
    if (logs.length >= limit) break;
  }
  out.list(logs as unknown as Record<string, unknown>[], LOG_COLUMNS);
}
