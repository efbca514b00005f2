/**
 * What `tenant-messaging-mcp` is told by its flags and the environment, checked before anything
 * starts: a bad value is a UsageError (exit 2) naming the flag or the variable that gave it.
 */
import type { LogLevel } from 'tenant-messaging';
import { ENV, quoteInput, secretsInEnv, UsageError } from 'tenant-messaging-bin-kit';
import { isLoopback } from '../access/auth.js';
import { type RecipientList, recipientList } from '../access/recipients.js';
import { type McpFlags, TOKEN_ENV } from './command.js';
import { LOG_LEVELS } from './log.js';

export { type McpFlags, TOKEN_ENV };

/** The shortest token `--http` accepts: a short one could be guessed by anything on the machine. */
export const MIN_TOKEN_LENGTH = 16;

/** Where `--http` listens. */
export interface HttpAddress {
  /** A loopback host: `127.0.0.1` (any 127.x.y.z), `localhost` or `[::1]`. */
  readonly host: string;
  /** The port; 0 picks a free one (the ready line on stderr names it). */
  readonly port: number;
}

/** The checked settings of one `tenant-messaging-mcp` process. */
export interface McpSettings {
  /** Streamable HTTP on this address, or undefined for stdio. */
  readonly http: HttpAddress | undefined;
  /** The bearer token every HTTP request must carry (with `http` only). */
  readonly token: string | undefined;
  readonly allowSend: boolean;
  readonly maxSends: number | undefined;
  readonly allowRecipients: RecipientList | undefined;
  /** The lowest level logged on stderr. */
  readonly logLevel: LogLevel;
}

/**
 * The settings of `flags` and `env`; `verbose` (`--verbose`) logs at `debug`. Throws
 * a UsageError for a bad value, a send limit without `--allow-send`, `--http` without
 * `TENANT_MESSAGING_MCP_TOKEN`, or a host that is not loopback.
 *
 * @example
 * ```ts
 * const settings = mcpSettings({ http: '127.0.0.1:8808' }, process.env, false)
 * ```
 */
export function mcpSettings(
  flags: McpFlags,
  env: NodeJS.ProcessEnv,
  verbose: boolean | undefined,
  known: readonly string[] = [],
): McpSettings {
  // Redacted from a quoted value before it is shortened: a cut could keep part of a key pasted in.
  const secrets = [...secretsInEnv(env), ...known];
  const allowSend = flags.allowSend === true;
  for (const [flag, given] of [
    ['--max-sends', flags.maxSends],
    ['--allow-recipients', flags.allowRecipients],
  ] as const) {
    if (given !== undefined && !allowSend) {
      throw new UsageError(
        `${flag} limits sending, which is off: add --allow-send to serve prepare_send and send_message`,
      );
    }
  }
  const http = flags.http === undefined ? undefined : httpAddressOf(flags.http, secrets);
  return {
    http,
    token: http === undefined ? undefined : tokenOf(env),
    allowSend,
    maxSends: flags.maxSends === undefined ? undefined : parseCount(flags.maxSends, '--max-sends', secrets),
    allowRecipients: flags.allowRecipients === undefined ? undefined : recipientList(flags.allowRecipients, secrets),
    logLevel: verbose ? 'debug' : logLevelOf(env, secrets),
  };
}

/** A positive whole number given to `flag`, and one a JavaScript number holds exactly. */
function parseCount(text: string, flag: string, secrets: readonly string[]): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a whole number >= 1, got ${quoteInput(text, undefined, secrets)}`);
  return n;
}

/** `--http host:port`, the host loopback only: the server holds the API key, and the token is its only lock. */
function httpAddressOf(text: string, secrets: readonly string[]): HttpAddress {
  const match = /^(\[[^\]]*\]|[^:[\]]+):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65_535) {
    throw new UsageError(
      `--http takes a loopback address and a port, such as 127.0.0.1:8808, got ${quoteInput(text, undefined, secrets)}`,
    );
  }
  const host = (match[1] ?? '').toLowerCase();
  if (!isLoopback(host)) {
    throw new UsageError(
      `--http listens on loopback only (127.0.0.1, localhost or [::1]), got ${quoteInput(match[1] ?? '', undefined, secrets)}: the server acts with your API key, so nothing off this machine may reach it`,
    );
  }
  return { host, port };
}

function tokenOf(env: NodeJS.ProcessEnv): string {
  const token = env[TOKEN_ENV]?.trim();
  if (!token) {
    throw new UsageError(
      `--http needs ${TOKEN_ENV}: every request must then carry the header "Authorization: Bearer" followed by its value. Make one (e.g. openssl rand -hex 32) and give it to the server and to the client.`,
    );
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new UsageError(
      `${TOKEN_ENV} is too short to be safe (${token.length} characters, at least ${MIN_TOKEN_LENGTH}): make a longer one (e.g. openssl rand -hex 32)`,
    );
  }
  return token;
}

/**
 * `TENANT_MESSAGING_LOG`, as the client reads it, but `info` when unset: a server's stderr is its
 * log, and the line saying where it serves is worth having.
 */
function logLevelOf(env: NodeJS.ProcessEnv, secrets: readonly string[]): LogLevel {
  const given = env[ENV.logLevel]?.trim();
  if (!given) return 'info';
  if (!LOG_LEVELS.includes(given as LogLevel)) {
    throw new UsageError(
      `${ENV.logLevel} must be one of ${LOG_LEVELS.join(', ')}, got ${quoteInput(given, undefined, secrets)}`,
    );
  }
  return given as LogLevel;
}
