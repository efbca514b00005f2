import type { MessageLog, MessagingClient, SendMessageParams } from 'tenant-messaging';
import { mediaFromPath, SendOutcomeUnknownError } from 'tenant-messaging';
import { parseCount, parseDuration } from '../duration.js';
import { UsageError } from '../exit-codes.js';
import type { Output } from '../output.js';

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

/** `send`: one message; `--wait` follows it to delivered (or read); `--reconcile` settles an unknown outcome. */
export async function send(flags: SendFlags, { client, out, signal }: Context): Promise<void> {
  const params = sendParamsOf(flags);
  const until =
    flags.wait === 'read' ? 'read' : flags.wait === undefined || flags.wait === false ? undefined : 'delivered';
  if (typeof flags.wait === 'string' && flags.wait !== 'read' && flags.wait !== 'delivered') {
    throw new UsageError(`--wait takes delivered or read, got '${flags.wait}'`);
  }
  const timeout = parseDuration(flags.timeout, '--timeout');
  let log: MessageLog;
  try {
    // Not aborted by Ctrl-C: a send in flight finishes and is reported (an aborted POST could
    // have reached the service with nobody told). The exit code is still 130 afterwards.
    log = await client.messages.send(params);
  } catch (error) {
    if (!(error instanceof SendOutcomeUnknownError) || !flags.reconcile || !error.params) throw error;
    out.note(`The outcome is unknown (${error.message.split('\n')[0]}). Searching the message logs for it...`);
    const result = await client.messages.reconcile(error.params, { since: error.startedAt, signal });
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
  if (until === undefined) {
    out.value(log, () => `sent: ${logLine(log)}`);
    return;
  }
  out.note(`sent: ${logLine(log)}`);
  await follow(
    log.id,
    until,
    { timeout, interval: parseDuration(flags.interval, '--interval') },
    { client, out, signal },
  );
}

/** `wait`: follows a log until `until`, with a live status line on a terminal. */
export async function follow(
  id: number,
  until: 'delivered' | 'read',
  { timeout, interval }: { timeout: number; interval: number },
  { client, out, signal }: Context,
) {
  try {
    const log = await client.waitForDelivery(id, {
      until,
      timeout,
      interval,
      signal,
      onUpdate: (seen) => out.status(`message log ${id}: ${seen.delivery_status}`),
    });
    out.endStatus();
    out.value(log, () => `${until === 'read' ? 'read' : 'delivered'}: ${logLine(log)}`);
  } finally {
    out.endStatus();
  }
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
