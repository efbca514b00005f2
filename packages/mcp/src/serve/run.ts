/**
 * `tenant-messaging-mcp` once its settings are checked and its client made: serves the tools over
 * stdio (the default) or Streamable HTTP (`--http`) until the client goes away (stdin ends) or a
 * stop signal comes. On a stop signal it takes no new call, lets the calls in flight finish and
 * sends their results (drain.ts: within STOP_GRACE_MS, then FLUSH_MS over HTTP), then closes every
 * session and returns. Loaded by start.ts once the command line is known good (a dynamic import):
 * the MCP SDK loads only to serve.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { MessagingClient } from 'tenant-messaging';
import type { Log, ServerLog } from '../shell/log.js';
import type { McpSettings } from '../shell/options.js';
import { STOP_GRACE_MS } from '../state/drain.js';
import { createToolbox, type Toolbox } from '../tools/toolbox.js';
import { serveHttp } from './http.js';
import { createMcpServer } from './server.js';

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
    const serving = await serveHttp(settings.http, settings.token ?? '', toolbox, { log, secrets });
    log.info?.(`mcp: serving Streamable HTTP at ${serving.url} (${mode}; bearer token required)`);
    await stopped(signal);
    serving.stopAccepting();
    await drained(toolbox, log);
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
    const why = await Promise.race([
      inputEnded.then(() => 'ended' as const),
      stopped(signal).then(() => 'stop' as const),
    ]);
    if (why === 'stop') {
      await drained(toolbox, log);
      // The results of the last calls are written once their handlers resolved: a turn later.
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    process.stdin.off('end', ended);
    process.stdin.off('close', ended);
    await server.close();
  }
}

/** Stops the toolbox: the calls in flight finish and resolve with their results (drain.ts). */
async function drained(toolbox: Toolbox, log: Log): Promise<void> {
  log.info?.(`mcp: stopping: no new calls; waiting up to ${STOP_GRACE_MS / 1000} s for the calls in flight`);
  await toolbox.stop(STOP_GRACE_MS);
}

/** Resolves once `signal` aborts (a stop signal: main.ts sets the exit code). */
function stopped(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
