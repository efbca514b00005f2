/**
 * `prepare_send`: checks a text message as `messages.send` does (the SDK's `validateSendParams`:
 * the same checks, the same messages), applies the operator's limits, and hands back a preview and
 * an approval, without sending anything. The message is kept here under the approval:
 * `send_message` sends that copy.
 */
import {
  MEDIA_TYPES,
  type MessagingClient,
  type SendTextParams,
  ValidationError,
  validateSendParams,
} from 'tenant-messaging';
import { redactSecrets } from 'tenant-messaging-bin-kit';
import type { RecipientList } from '../access/recipients.js';
import { quoted, shownPhone } from '../answers/quote.js';
import { Refusal, success, type ToolResult } from '../answers/results.js';
import { type Approvals, TooManyApprovalsError } from '../state/approvals.js';
import type { SendBudget } from '../state/limits.js';
import { type RateWatch, sendTiming } from '../state/timing.js';

/** What the send tools work with: one of each per server process. */
export interface SendDeps {
  readonly client: MessagingClient;
  readonly approvals: Approvals;
  readonly budget: SendBudget;
  /** `--allow-recipients`, or undefined for any recipient. */
  readonly recipients: RecipientList | undefined;
  readonly watch: RateWatch;
  /** The secrets the server knows: redacted from an input before a refusal shortens it. */
  readonly secrets: readonly string[];
}

/**
 * The words `messages.send` starts its ValidationError with: a refused preparation reads as a
 * refused send would (test/integration/mcp-send.test.ts compares the two).
 */
export const SEND_PARAMS = 'Invalid send parameters';

/**
 * The text message of `args`, checked by the SDK's `validateSendParams`; a ValidationError otherwise.
 *
 * @example
 * ```ts
 * const params = await checkedTextSend({ sender_phone: '+15550001001', to_phone: '+15557654321', type: 'text', content: 'Hi' })
 * ```
 */
export async function checkedTextSend(args: unknown): Promise<SendTextParams> {
  // One read of the caller's fields: what is checked for media below is what the SDK checks.
  let fields = args;
  let type: unknown;
  try {
    if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
      const copy: Record<string, unknown> = { ...args };
      [fields, type] = [copy, copy['type']];
    }
  } catch {
    // A getter or trap that throws: validateSendParams reports it as messages.send does.
  }
  const checked = (MEDIA_TYPES as readonly unknown[]).includes(type) ? undefined : await validateSendParams(fields);
  if (checked?.type !== 'text') {
    throw new ValidationError(SEND_PARAMS, [
      { path: 'type', message: "must be 'text': this server prepares text messages only (no media)" },
    ]);
  }
  return checked;
}

/** `prepare_send`: a preview and an approval; nothing is sent. */
export async function prepareSend(args: unknown, deps: SendDeps): Promise<ToolResult> {
  const params = await checkedTextSend(args);
  if (deps.recipients && !deps.recipients.allows(params.to_phone)) {
    throw new Refusal(
      `${shownPhone(params.to_phone, deps.secrets)} is not among the recipients this server may write to (--allow-recipients ${deps.recipients.patterns.join(',')}). Nothing was prepared. Only the person running the server can change the list.`,
    );
  }
  // Every result is redacted (toolbox.ts): a message holding a secret would be previewed and
  // confirmed as `[redacted]` and sent whole. It is refused instead, so what is shown is what is sent.
  const carrying = (['content', 'to_phone', 'sender_phone'] as const).filter((field) => {
    const value = params[field];
    return value !== undefined && redactSecrets(value, deps.secrets) !== value;
  });
  if (carrying.length > 0) {
    throw new Refusal(
      `The message's ${carrying.join(' and ')} holds a secret of this server (its API key or its bearer token, in some spelling): nothing was prepared. A message may never carry them: write it without.`,
    );
  }
  if (deps.budget.left === 0) throw new Refusal(capReached(deps.budget));
  const timing = await sendTiming(deps.client, deps.watch);
  let approval: ReturnType<Approvals['issue']>;
  try {
    approval = deps.approvals.issue(params);
  } catch (error) {
    if (error instanceof TooManyApprovalsError) throw new Refusal(error.message);
    throw error;
  }
  const expiresAt = new Date(approval.expiresAt).toISOString();
  const minutes = Math.round(deps.approvals.ttlMs / 60_000);
  const preview = {
    ...(params.sender_phone === undefined ? {} : { sender_phone: params.sender_phone }),
    ...(params.sender_number_id === undefined ? {} : { sender_number_id: params.sender_number_id }),
    to_phone: params.to_phone,
    type: 'text' as const,
    content: params.content,
    when: timing.when,
    not_before: timing.not_before,
    sends_left: deps.budget.left ?? null,
  };
  const text = [
    'Prepared, NOT sent. Show the person this message and send it only if they approve it as it is:',
    ...messageLines(params).map((line) => `  ${line}`),
    `  When: ${timing.when}`,
    `Once approved, call send_message with {"approval": "${approval.token}"}. The approval expires at ${expiresAt} (in ${minutes} minutes) and sends exactly this message, once. To change anything, call prepare_send again.`,
  ].join('\n');
  return success(text, { approval: approval.token, expires_at: expiresAt, preview });
}

/**
 * The message as the person reads it, in the preview and in the confirmation: `To:`, `From:` and
 * `Text:`, one line each, whatever the message holds.
 *
 * @example
 * ```ts
 * messageLines(params) // ['To: +15557654321', 'From: +15550001001', 'Text: "Hi"']
 * ```
 */
export function messageLines(params: Readonly<SendTextParams>): string[] {
  const from =
    params.sender_phone === undefined ? `sender number ${params.sender_number_id}` : shownPhone(params.sender_phone);
  return [`To: ${shownPhone(params.to_phone)}`, `From: ${from}`, `Text: ${quoted(params.content)}`];
}

/**
 * The refusal once `--max-sends` is used up.
 *
 * @example
 * ```ts
 * throw new Refusal(capReached(budget))
 * ```
 */
export function capReached(budget: SendBudget): string {
  return `This server may send ${budget.max} messages in its life (--max-sends ${budget.max}) and has used them: nothing more can be sent until the person running it restarts it.`;
}
