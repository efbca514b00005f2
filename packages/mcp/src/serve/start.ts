/**
 * The server once its command line is parsed: checks the flags, the environment and the
 * credentials, makes the client (its log on stderr, secrets redacted), then loads the MCP server
 * (and the MCP SDK) and serves until the client goes away or a stop signal comes. Every usage
 * error is found before the MCP SDK loads.
 */
import { readFile } from 'node:fs/promises';
import { MessagingClient } from 'tenant-messaging';
import type { CredentialFlags } from 'tenant-messaging-bin-kit';
import { credentialsFrom } from 'tenant-messaging-bin-kit';
import type { McpFlags } from '../shell/command.js';
import { serverLog } from '../shell/log.js';
import { mcpSettings } from '../shell/options.js';

/**
 * Serves until stdin ends or `signal` aborts; throws a UsageError for bad flags or credentials.
 *
 * @example
 * ```ts
 * await startMcp({ allowSend: true, maxSends: '5' }, { apiKeyFile: './key' }, controller.signal)
 * ```
 */
export async function startMcp(flags: McpFlags, given: CredentialFlags, signal: AbortSignal): Promise<void> {
  // The key file is read first so its key is redacted from a flag quoted back; a bad flag is
  // still the error reported, before a credentials one.
  const read = await credentialsFrom(given, process.env).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const known = read.ok ? read.value.secrets : await keyInFile(given.apiKeyFile);
  const settings = mcpSettings(flags, process.env, given.verbose, known);
  if (!read.ok) throw read.error;
  const credentials = read.value;
  const secrets = [...credentials.secrets, ...(settings.token === undefined ? [] : [settings.token])];
  const log = serverLog(settings.logLevel, secrets);
  const client = new MessagingClient({
    ...(credentials.baseUrl === undefined ? {} : { baseUrl: credentials.baseUrl }),
    ...(credentials.apiKey === undefined ? {} : { apiKey: credentials.apiKey }),
    logger: log.logger,
    logLevel: log.level,
  });
  try {
    const { runMcp } = await import('./run.js');
    await runMcp(settings, client, log, secrets, signal);
  } finally {
    await client.close();
  }
}

/** The key of `--api-key-file` when the credentials were refused for something else (a missing URL). */
async function keyInFile(path: string | undefined): Promise<string[]> {
  if (path === undefined) return [];
  const key = await readFile(path, 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  return key === '' ? [] : [key];
}
