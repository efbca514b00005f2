/**
 * The read-only tools: each one SDK call, its answer as `structuredContent` and a line or two for
 * the model. They are served whether or not sending is allowed.
 */
import {
  DeliveryTimeoutError,
  type JsonObject,
  type MessageLog,
  type MessagingClient,
  NotFoundError,
} from 'tenant-messaging';
import { failure, success, type ToolResult } from '../answers/results.js';
import { WAIT_TIMEOUT } from '../state/limits.js';

/** What a read tool is handed: the client, and the signal the client's cancellation aborts. */
export interface ReadContext {
  readonly client: MessagingClient;
  readonly signal: AbortSignal;
}

/**
 * A log in one line: `Message log 42: text to +15557654321, delivery_status delivered (sent_at ...)`.
 *
 * @example
 * ```ts
 * logLine(log) // 'Message log 42: text to +15557654321, delivery_status delivered (sent 2026-11-25T04:25:52Z)'
 * ```
 */
export function logLine(log: MessageLog): string {
  const to = log.request_payload['to_phone'];
  const recipient = typeof to === 'string' ? ` to ${to}` : '';
  const sent = log.sent_at === null ? '' : ` (sent ${log.sent_at})`;
  return `Message log ${log.id}: ${log.message_type}${recipient}, delivery_status ${log.delivery_status}${sent}`;
}

/** The tool error for a log id that is not this tenant's: says the log was not found, and what id to use. */
function notFound(id: number, error: NotFoundError): ToolResult {
  return failure(
    `Message log ${id} was not found: no log with this id exists in this tenant’s workspace (404: ${error.message}). ` +
      'Use a log’s `id` (as list_messages shows it), not its `message_id`.',
  );
}

/** Runs `read`, turning a 404 into the not-found tool error for `id`. */
async function readLog(id: number, read: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof NotFoundError) return notFound(id, error);
    throw error;
  }
}

/** `get_message`: one log with its current `delivery_status`. */
export function getMessage(args: { id: number }, { client, signal }: ReadContext): Promise<ToolResult> {
  return readLog(args.id, async () => {
    const log = await client.messages.get(args.id, { signal });
    return success(logLine(log), log);
  });
}

/** `list_messages`: one page of logs, newest first as the API orders them. */
export async function listMessages(args: { page?: number | undefined }, ctx: ReadContext): Promise<ToolResult> {
  const page = await ctx.client.messages.list(args.page === undefined ? {} : { page: args.page }, {
    signal: ctx.signal,
  });
  const at = page.meta?.current_page ?? args.page ?? 1;
  const next = page.hasNextPage() ? at + 1 : null;
  const head = `${page.data.length} message log${page.data.length === 1 ? '' : 's'} on page ${at}${page.meta?.last_page ? ` of ${page.meta.last_page}` : ''}${next ? ` (next: page ${next})` : ''}.`;
  return success([head, ...page.data.map(logLine)].join('\n'), {
    messages: page.data,
    page: countersOf(page.meta),
    next_page: next,
  });
}

/** The paging counters a model can use. */
const COUNTERS = ['current_page', 'last_page', 'per_page', 'total', 'from', 'to'] as const;

/**
 * The numeric paging counters of `meta`, or null: never its `links`, whose labels are the
 * framework's HTML (`&laquo; Previous`), words for a web page and not for a model.
 */
function countersOf(meta: Readonly<Record<string, unknown>> | null): Record<string, number> | null {
  if (meta === null) return null;
  const counters: Record<string, number> = {};
  for (const name of COUNTERS) if (typeof meta[name] === 'number') counters[name] = meta[name];
  return counters;
}

/** `wait_for_delivery`: polls one log until it is delivered (or read), or the timeout. */
export function waitForDelivery(
  args: { id: number; timeout?: number | undefined; until?: 'delivered' | 'read' | undefined },
  { client, signal }: ReadContext,
): Promise<ToolResult> {
  const until = args.until ?? 'delivered';
  const timeout = args.timeout ?? WAIT_TIMEOUT.default;
  return readLog(args.id, async () => {
    try {
      const log = await client.waitForDelivery(args.id, { until, timeout, signal });
      return success(logLine(log), log);
    } catch (error) {
      if (!(error instanceof DeliveryTimeoutError)) throw error;
      const status = error.lastLog?.delivery_status ?? 'unknown';
      return failure(
        `Message log ${args.id} was not ${until} within ${Math.round(timeout / 1000)} s: its delivery_status is still '${status}'. ` +
          'The message was sent; delivery is confirmed only when the recipient’s app reports it. Call wait_for_delivery again later, or get_message to look once.',
      );
    }
  });
}

/** `lookup_contact`: whether a recipient can receive messages from a sender number. */
export async function lookupContact(
  args: { phone: string; sender_phone: string },
  { client, signal }: ReadContext,
): Promise<ToolResult> {
  const answer = await client.contacts.lookup(args, { signal });
  return success(`Lookup of ${args.phone} from ${args.sender_phone}: ${JSON.stringify(answer)}`, answer);
}

/** `list_sender_numbers`: the tenant's sender numbers. */
export async function listSenderNumbers(_args: object, { client, signal }: ReadContext): Promise<ToolResult> {
  const numbers = await client.senderNumbers.list({ signal });
  const lines = numbers.map((number) => `- ${describeNumber(number)}`);
  return success([`${numbers.length} sender numbers:`, ...lines].join('\n'), { sender_numbers: numbers });
}

/** `get_usage`: the usage counters and limits of the period. */
export async function getUsage(_args: object, { client, signal }: ReadContext): Promise<ToolResult> {
  const usage = await client.usage({ signal });
  return success(`Usage: ${JSON.stringify(usage)}`, usage);
}

/** A sender number as the sandbox and Laravel apps describe one: its phone, id and status when present. */
function describeNumber(number: JsonObject): string {
  const phone = typeof number['phone'] === 'string' ? number['phone'] : JSON.stringify(number);
  const details = (['id', 'status'] as const)
    .filter((key) => number[key] !== undefined)
    .map((key) => `${key} ${String(number[key])}`);
  return details.length > 0 ? `${phone} (${details.join(', ')})` : phone;
}
