/**
 * `tenant-messaging-mcp` once its settings are checked and its client made: serves the tools over
 * stdio (the default) or Streamable HTTP (`--http`) until the client goes away (stdin ends) or a
 * stop signal comes, then closes every session and returns. Loaded by start.ts once the command
 * line is known good (a dynamic import): the MCP SDK loads only to serve.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { MessagingClient } from 'tenant-messaging';
import { serveHttp } from './http.js';
import type { Log, ServerLog } from './log.js';
import type { McpSettings } from './options.js';
import { createMcpServer } from './server.js';
import { createToolbox, type Toolbox } from './toolbox.js';

/**
 * Serves until stdin ends or `signal` aborts. `client` logs through `serverLog.logger` already;
 * `secrets` (the API key, the bearer token) are redacted from every result.
 *
 * @example
 * ```ts
 * await runMcp(settings, client, serverLog('info', secrets), secrets, signal)
 * ```
 */
export async function runMcp(
  settings: McpSettings,
  client: MessagingClient,
  { log }: ServerLog,
  secrets: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  const toolbox = createToolbox({
    client,
    allowSend: settings.allowSend,
    maxSends: settings.maxSends,
    allowRecipients: settings.allowRecipients,
    log,
    secrets,
  });
  const mode = settings.allowSend
    ? `sending allowed${settings.maxSends === undefined ? '' : `, at most ${settings.maxSends}`}${settings.allowRecipients ? ` to ${settings.allowRecipients.patterns.join(',')}` : ''}`
    : 'read-only';
  if (settings.http === undefined) await serveStdio(toolbox, log, mode, signal);
  else {
    const serving = await serveHttp(settings.http, settings.token ?? '', toolbox, log);
    log.info?.(`mcp: serving Streamable HTTP at ${serving.url} (${mode}; bearer token required)`);
    await stopped(signal);
    await serving.close();
  }
  log.info?.('mcp: stopped');
}

/** Serves one session over stdin and stdout until stdin ends or `signal` aborts. */
async function serveStdio(toolbox: Toolbox, log: Log, mode: string, signal: AbortSignal): Promise<void> {
  const server = createMcpServer(toolbox);
  const transport = new StdioServerTransport();
  let ended: () => void = () => {};
  const inputEnded = new Promise<void>((resolve) => {
    ended = resolve;
  });
  process.stdin.once('end', ended);
  process.stdin.once('close', ended);
  server.onclose = ended;
  try {
    await server.connect(transport);
    log.info?.(`mcp: serving over stdio (${mode})`);
    await Promise.race([inputEnded, stopped(signal)]);
  } finally {
    process.stdin.off('end', ended);
    process.stdin.off('close', ended);
    await server.close();
  }
}

/** Resolves once `signal` aborts (a stop signal: main.ts sets the exit code). */
function stopped(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
