/**
 * `send_message`: redeems an approval. It sends the copy `prepare_send` kept, at most once: a
 * second call answers what the first one got, and two calls at once share one redemption. With a
 * client that can ask its user (MCP elicitation), the person confirms first; a decline spends the
 * approval, a cancel leaves it unused. An outcome that is unknown is looked for in the message
 * logs (`messages.reconcile`), never sent again.
 */
import {
  APIConnectionError,
  APIError,
  type MessageLog,
  SendOutcomeUnknownError,
  type SendTextParams,
  ValidationError,
} from 'tenant-messaging';
import { errorResult, failure, success, type ToolResult } from '../answers/results.js';
import type { Approval } from '../state/approvals.js';
import { capReached, messageLines, type SendDeps } from './prepare-send.js';
import { logLine } from './read-tools.js';

/** A person's answer to "send this message?": as MCP elicitation names them. */
export type Confirmation = 'accept' | 'decline' | 'cancel';

/**
 * Asks the person to confirm `question`, giving up when `signal` aborts (the server is stopping);
 * undefined when the client cannot ask (no elicitation).
 */
export type Confirm = (question: string, signal: AbortSignal) => Promise<Confirmation>;

/**
 * `send_message`: the approval's message, sent once.
 *
 * @example
 * ```ts
 * const result = await sendMessage({ approval }, deps, confirm)
 * ```
 */
export function sendMessage(
  args: { approval: string },
  deps: SendDeps,
  confirm: Confirm | undefined,
  stopping: AbortSignal = new AbortController().signal,
): Promise<ToolResult> {
  const found = deps.approvals.find(args.approval);
  if ('missing' in found) {
    return Promise.resolve(
      failure(
        found.missing === 'expired'
          ? `This approval expired at ${new Date(found.expiresAt).toISOString()} unused: nothing was sent. Call prepare_send again and let the person approve the new preview.`
          : 'This server issued no such approval (or it restarted since): nothing was sent. Approvals come only from prepare_send; call it and let the person approve the preview.',
      ),
    );
  }
  // Joined, not started again: the first call's confirmation and send are this call's too.
  if (found.inFlight) return found.inFlight as Promise<ToolResult>;
  const { state } = found;
  if (state.kind === 'sent') return Promise.resolve(sent(state.log, 'again', state.reconciled));
  if (state.kind === 'declined') {
    return Promise.resolve(
      failure('The person declined this message: nothing was sent, and this approval is spent. Do not send it.'),
    );
  }
  const work = state.kind === 'unknown' ? lookFor(found, deps) : confirmAndSend(found, deps, confirm, stopping);
  const shared = work.finally(() => {
    found.inFlight = undefined;
  });
  found.inFlight = shared;
  return shared;
}

/** Asks (when the client can), then sends once. */
async function confirmAndSend(
  approval: Approval,
  deps: SendDeps,
  confirm: Confirm | undefined,
  stopping: AbortSignal,
): Promise<ToolResult> {
  const until = new Date(approval.expiresAt).toISOString();
  if (confirm) {
    let answer: Confirmation;
    try {
      answer = await confirm(questionOf(approval.params), stopping);
    } catch (error) {
      if (stopping.aborted) {
        return failure(
          'The server is stopping and the person had not answered: nothing was sent. Approvals end with the server: once it is back, call prepare_send again and let the person approve the new preview.',
        );
      }
      return failure(
        `The person was asked to confirm, but no answer came (${error instanceof Error ? error.message : String(error)}): nothing was sent. The approval stays usable until ${until}.`,
      );
    }
    if (answer === 'decline') {
      approval.state = { kind: 'declined' };
      return failure('The person declined this message: nothing was sent, and this approval is spent. Do not send it.');
    }
    if (answer === 'cancel') {
      return failure(
        `The person closed the confirmation without deciding: nothing was sent. The approval stays usable until ${until}; call send_message again only if they ask for it.`,
      );
    }
  }
  if (!deps.budget.reserve()) return failure(capReached(deps.budget));
  const startedAt = new Date();
  try {
    const log = await deps.client.messages.send(approval.params);
    approval.state = { kind: 'sent', log, reconciled: false };
    return sent(log, 'now', false);
  } catch (error) {
    deps.watch.observe(error);
    if (certainlyNotSent(error)) {
      deps.budget.release();
      const result = errorResult(error);
      const note = `Nothing was sent. The approval stays usable until ${until}: call send_message again once the cause is fixed.`;
      return { ...result, content: [{ type: 'text', text: `${result.content[0]?.text ?? ''}\n${note}` }] };
    }
    // It may have gone out: never again, only looked for.
    const known = error instanceof SendOutcomeUnknownError ? error : undefined;
    approval.state = {
      kind: 'unknown',
      params: known?.params ?? approval.params,
      since: known?.startedAt ?? startedAt,
      cause: error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error),
    };
    return lookFor(approval, deps);
  }
}

/**
 * True only when the send certainly never reached the service: refused by the SDK's checks, or by
 * the API with a 4xx, or a connection that never sent it. Anything else may have been sent.
 */
function certainlyNotSent(error: unknown): boolean {
  if (error instanceof ValidationError) return !error.mayHaveBeenSent;
  if (error instanceof APIError) return error.status < 500;
  return error instanceof APIConnectionError && error.neverSent;
}

/** Looks for a send whose outcome is unknown in the message logs, as the SDK reconciles. */
async function lookFor(approval: Approval, deps: SendDeps): Promise<ToolResult> {
  const state = approval.state;
  if (state.kind !== 'unknown') return failure('This approval has no unknown outcome to look for.');
  let found: string;
  try {
    const result = await deps.client.messages.reconcile(state.params, { since: state.since });
    if (result.status === 'found') {
      approval.state = { kind: 'sent', log: result.log, reconciled: true };
      return sent(result.log, 'now', true);
    }
    found =
      result.status === 'ambiguous'
        ? `${result.candidates.length} logs could be it (ids ${result.candidates.map((log) => log.id).join(', ')}); only the person can tell which`
        : `no log matches it ${result.searched.complete ? 'yet' : `in the ${result.searched.logs} newest logs read`}`;
  } catch (error) {
    deps.watch.observe(error);
    found = `the message logs could not be searched (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  }
  return failure(
    `The outcome of this send is unknown: ${state.cause} It may have been sent, so it was NOT sent again. Searched the message logs: ${found}. ` +
      'Call send_message again with the same approval later to look again (it only searches, it never sends). Do not prepare the same message again unless the person decides to.',
  );
}

/** The answer for a sent message: its log. */
function sent(log: MessageLog, when: 'now' | 'again', reconciled: boolean): ToolResult {
  const how =
    when === 'again'
      ? 'Already sent with this approval; nothing was sent again'
      : reconciled
        ? 'Sent (the API’s answer was lost; the message logs show it arrived)'
        : 'Sent';
  return success(`${how}. ${logLine(log)}. Call wait_for_delivery with id ${log.id} to follow its delivery.`, log);
}

/**
 * The confirmation a person reads: the recipient and the sender once each, and the text quoted
 * (line breaks, control and bidi characters shown as escapes), so that nothing in the message can
 * pass for a line of the question. The same lines as `prepare_send`'s preview.
 *
 * @example
 * ```ts
 * questionOf({ sender_phone: '+15550001001', to_phone: '+15557654321', type: 'text', content: 'Hi' })
 * // 'Send this text message?\n\nTo: +15557654321\nFrom: +15550001001\nText: "Hi"'
 * ```
 */
export function questionOf(params: Readonly<SendTextParams>): string {
  return `Send this text message?\n\n${messageLines(params).join('\n')}`;
}
