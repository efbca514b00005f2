/**
 * One MCP server session over the toolbox, built on the MCP SDK's low-level `Server`: it answers
 * `tools/list` with the toolbox's tools (their JSON Schema made by schemas.ts) and `tools/call`
 * with the toolbox's result, and asks the person to confirm a send through elicitation when the
 * client declares it. The only module, with http.ts and run.ts, that loads the MCP SDK.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type ClientCapabilities,
  ElicitResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Confirmation } from '../tools/send-message.js';
import type { Toolbox } from '../tools/toolbox.js';
import { VERSION } from '../version.js';

/** How long the person has to answer a confirmation before the send is left unsent. */
const CONFIRM_TIMEOUT_MS = 10 * 60_000;

const READ_ONLY = `Tools of the Tenant Messaging API (tenant-messaging): read message logs and their delivery status, sender numbers, usage, and whether a recipient is reachable. This server is read-only: it cannot send.`;

const SENDING = `Tools of the Tenant Messaging API (tenant-messaging): read message logs and their delivery status, sender numbers and usage, and send text messages a person approved.
To send: call prepare_send (it sends nothing), show the person the preview it returns, and only once they approve that exact message call send_message with its approval. Never call send_message for a preview the person has not approved. A message cannot be changed after prepare_send: prepare a new one instead. send_message sends at most once per approval: calling it again returns the same message log, and an unknown outcome is looked for in the logs, never sent again.`;

/**
 * An MCP server session serving `toolbox`; connect it to a transport (`server.connect(transport)`).
 *
 * @example
 * ```ts
 * const server = createMcpServer(createToolbox({ client }))
 * await server.connect(new StdioServerTransport())
 * ```
 */
export function createMcpServer(toolbox: Toolbox): Server {
  const server = new Server(
    { name: 'tenant-messaging', title: 'Tenant Messaging', version: VERSION },
    { capabilities: { tools: {} }, instructions: toolbox.allowSend ? SENDING : READ_ONLY },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await toolbox.list() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    toolbox.call(request.params.name, request.params.arguments, {
      signal: extra.signal,
      confirm: canAsk(server.getClientCapabilities())
        ? (question, stopping) =>
            extra
              .sendRequest(
                { method: 'elicitation/create', params: { mode: 'form', message: question, requestedSchema: CONFIRM } },
                ElicitResultSchema,
                { timeout: CONFIRM_TIMEOUT_MS, signal: stopping },
              )
              .then(({ action, content }): Confirmation => {
                if (action !== 'accept') return action;
                // An accepted form whose box was left unticked is a no.
                return content?.['confirm'] === true ? 'accept' : 'decline';
              })
        : undefined,
    }),
  );
  return server;
}

/** The form of the confirmation: one box to tick. */
const CONFIRM = {
  type: 'object' as const,
  properties: {
    confirm: {
      type: 'boolean' as const,
      title: 'Send this message',
      description: 'Tick to send the message above, exactly as shown, now.',
      default: false,
    },
  },
  required: ['confirm'],
};

/**
 * Whether the client takes a form elicitation: it declares `elicitation.form`, or an empty
 * `elicitation` (the spec's rule for clients older than modes). The SDK's `elicitInput` checks
 * `form` alone, so the request is sent through the call's own `sendRequest`, which also ties it to
 * the call (over HTTP, it goes on that call's stream).
 */
function canAsk(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}
