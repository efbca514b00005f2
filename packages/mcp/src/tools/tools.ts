/**
 * The tool table: each tool's name, what the model reads of it, the check of its arguments and its
 * handler (the JSON Schema `tools/list` shows is in tool-schemas.ts). The read tools are always
 * listed; `prepare_send` and `send_message` only with `--allow-send`.
 */
import type * as z from 'zod/mini';
import type { ToolResult } from '../answers/results.js';
import { INPUTS } from '../schemas/schemas.js';
import { prepareSend, type SendDeps } from './prepare-send.js';
import {
  getMessage,
  getUsage,
  listMessages,
  listSenderNumbers,
  lookupContact,
  type ReadContext,
  waitForDelivery,
} from './read-tools.js';
import { type Confirm, sendMessage } from './send-message.js';

/** What a handler is handed: the client and signal of the call, the send state, and the person's confirmation. */
export interface CallContext extends ReadContext {
  readonly send: SendDeps;
  /** Aborted once the server is stopping: a confirmation still unanswered ends, unsent. */
  readonly stopping: AbortSignal;
  /** Asks the person to confirm, when the client supports elicitation. */
  readonly confirm: Confirm | undefined;
}

/** MCP's hints about a tool, for clients deciding what to ask the person about. */
export interface ToolHints {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** One tool. */
export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Only served with `--allow-send`. */
  readonly sends: boolean;
  readonly annotations: ToolHints;
  /** Checks the arguments; undefined when the handler checks them itself (`prepare_send`: the SDK's send checks). */
  readonly input: z.ZodMiniType | undefined;
  run(args: unknown, context: CallContext): Promise<ToolResult>;
}

const READ: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A tool whose arguments are checked by `input` before `run` sees them. */
function tool<I extends z.ZodMiniType>(
  name: keyof typeof INPUTS,
  input: I,
  fields: Pick<ToolDefinition, 'title' | 'description' | 'annotations'> & { sends?: boolean },
  run: (args: z.output<I>, context: CallContext) => Promise<ToolResult>,
): ToolDefinition {
  return {
    name,
    sends: fields.sends ?? false,
    ...fields,
    input,
    run: (args, context) => run(args as z.output<I>, context),
  };
}

/** Every tool this server has, in the order `tools/list` shows them. */
export const TOOLS: readonly ToolDefinition[] = [
  tool(
    'get_message',
    INPUTS.get_message,
    {
      title: 'Get a message log',
      description:
        'Reads one message log by its id (a log’s `id`, as list_messages shows it, not its `message_id`), with its current delivery_status: sent (stored, no confirmed delivery), delivered, read, or unknown.',
      annotations: READ,
    },
    getMessage,
  ),
  tool(
    'list_messages',
    INPUTS.list_messages,
    {
      title: 'List message logs',
      description:
        'One page of the tenant’s message logs, newest first, each with its delivery_status. `page` starts at 1; next_page says whether another follows. To find a message, read the pages and match its content or request_payload.to_phone.',
      annotations: READ,
    },
    listMessages,
  ),
  tool(
    'wait_for_delivery',
    INPUTS.wait_for_delivery,
    {
      title: 'Wait for a delivery',
      description:
        'Polls one message log until it is delivered (or read, with until: "read"), for at most `timeout` ms (default 60000, at most 600000). Returns the log; a timeout is a tool error that says the last status seen.',
      annotations: READ,
    },
    (args, context) =>
      waitForDelivery(args, { ...context, signal: AbortSignal.any([context.signal, context.stopping]) }),
  ),
  tool(
    'lookup_contact',
    INPUTS.lookup_contact,
    {
      title: 'Look up a recipient',
      description: 'Checks whether `phone` can receive messages from the sender number `sender_phone`.',
      annotations: READ,
    },
    lookupContact,
  ),
  tool(
    'list_sender_numbers',
    INPUTS.list_sender_numbers,
    { title: 'List sender numbers', description: 'The tenant’s sender numbers (phones and ids).', annotations: READ },
    listSenderNumbers,
  ),
  tool(
    'get_usage',
    INPUTS.get_usage,
    {
      title: 'Get usage',
      description: 'The tenant’s usage counters and limits for the current period.',
      annotations: READ,
    },
    getUsage,
  ),
  {
    name: 'prepare_send',
    title: 'Prepare a text message',
    description:
      'Checks a text message and returns a preview and an approval token, WITHOUT sending it. Show the preview to the person; only after they approve it, call send_message with the approval. The approval sends exactly this message, once, and expires after 15 minutes.',
    sends: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: undefined,
    run: (args, context) => prepareSend(args, context.send),
  },
  tool(
    'send_message',
    INPUTS.send_message,
    {
      title: 'Send an approved message',
      description:
        'Sends the message prepare_send prepared, once the person approved its preview. Takes only the approval: the message cannot be changed. Calling it again with the same approval returns the same message log and sends nothing. Where the client can ask, the person is asked to confirm first.',
      sends: true,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (args, context) => sendMessage(args, context.send, context.confirm, context.stopping),
  ),
];
