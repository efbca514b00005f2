import { type CredentialOptions, clientFrom } from '../credentials.js';
import { type McpFlags, mcpSettings, TOKEN_ENV } from '../mcp/options.js';

export type { McpFlags };

/** The help after `tenant-messaging mcp --help`'s options. */
export const MCP_HELP = `
Serves the Tenant Messaging API to an AI assistant (Claude Desktop, Claude Code, Cursor, VS Code)
as MCP tools, over stdio, or Streamable HTTP on loopback with --http. Stdout carries MCP messages
only; the log goes to stderr (TENANT_MESSAGING_LOG: debug, info, warn, error or off).

Read-only unless --allow-send: get_message, list_messages, wait_for_delivery, lookup_contact,
list_sender_numbers, get_usage. With --allow-send, prepare_send checks a text message and returns
a preview and an approval (nothing is sent); send_message sends exactly that message, once, after
the person approved it (asked again through the client, when it supports elicitation). Approvals
expire after 15 minutes.

--http needs ${TOKEN_ENV}: every request must carry "Authorization: Bearer" and the
token, and only loopback hosts may be named.

Examples:
  $ tenant-messaging mcp
  $ tenant-messaging mcp --allow-send --max-sends 20 --allow-recipients '+1555*,+447911123456'
  $ ${TOKEN_ENV}=... tenant-messaging mcp --http 127.0.0.1:8808
The guide, with each client's configuration: docs/mcp.md (linked from the README).`;

/**
 * `mcp`: checks the flags and the credentials, then loads the MCP server (and the MCP SDK) and
 * serves until the client goes away or a stop signal comes. Nothing of the MCP SDK loads before
 * this action runs: no other command, and no SDK entry, pays for it.
 */
export async function mcp(flags: McpFlags, globals: CredentialOptions, signal: AbortSignal): Promise<void> {
  const settings = mcpSettings(flags, process.env, globals.verbose);
  const client = await clientFrom(globals);
  try {
    const { runMcp } = await import('../mcp/run.js');
    await runMcp(settings, client, globals, signal);
  } finally {
    await client.close();
  }
}
