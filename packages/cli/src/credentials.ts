import { readFile } from 'node:fs/promises';
import type { Logger } from 'tenant-messaging';
import { MessagingClient } from 'tenant-messaging';
import { ENV } from './env.js';
import { UsageError } from './exit-codes.js';

/** The global options every API command reads its credentials from. */
export interface CredentialOptions {
  readonly baseUrl?: string | undefined;
  readonly apiKeyFile?: string | undefined;
  readonly apiKey?: string | undefined;
  /** Every request and retry logged to stderr (the SDK's `debug` level: never the key). */
  readonly verbose?: boolean | undefined;
}

/**
 * A client from `--base-url` and `--api-key-file`, else `TENANT_MESSAGING_BASE_URL` and
 * `TENANT_MESSAGING_API_KEY` (the SDK's own defaults). Missing ones are reported here, with the
 * flags and variables that give them: the SDK's message ("pass it") speaks to code.
 *
 * Why `--api-key` is refused rather than warned about: a key on the command line is readable by
 * every user of the machine through `ps` and stays in the shell's history; a warning would come
 * after it had leaked. The environment or a file keeps it out of both.
 *
 * @example
 * ```ts
 * const client = await clientFrom({ apiKeyFile: '/run/secrets/tm-key' })
 * ```
 */
export async function clientFrom(options: CredentialOptions): Promise<MessagingClient> {
  if (options.apiKey !== undefined) {
    throw new UsageError(
      '--api-key is refused: a key on the command line is visible to every user through `ps` and stays in your shell history. Set TENANT_MESSAGING_API_KEY, or put the key in a file and pass its path with --api-key-file.',
    );
  }
  let apiKey: string | undefined;
  if (options.apiKeyFile !== undefined) {
    try {
      apiKey = (await readFile(options.apiKeyFile, 'utf8')).trim();
    } catch (error) {
      throw new UsageError(
        `--api-key-file: cannot read ${options.apiKeyFile} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
    if (apiKey === '') throw new UsageError(`--api-key-file: ${options.apiKeyFile} is empty`);
  }
  const missing = [
    ...(blank(options.baseUrl ?? process.env[ENV.baseUrl])
      ? [`the tenant URL: pass --base-url (e.g. --base-url https://acme.example.com), or set ${ENV.baseUrl}`]
      : []),
    ...(blank(apiKey ?? process.env[ENV.apiKey])
      ? [`the API key: set ${ENV.apiKey}, or put the key in a file and pass its path with --api-key-file`]
      : []),
  ];
  if (missing.length > 0) throw new UsageError(`Missing credentials:\n${missing.map((m) => `  - ${m}`).join('\n')}`);
  return new MessagingClient({
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...loggingOf(options.verbose),
  });
}

/** Unset, or only white space: what the SDK counts as missing. */
const blank = (value: string | undefined) => value === undefined || value.trim() === '';

/**
 * How a client of the bin logs. A person waits at the terminal: the SDK's own warnings would
 * interleave with the output, unless asked for (--verbose), and then on stderr, never stdout.
 *
 * @example
 * ```ts
 * new MessagingClient({ baseUrl, apiKey, ...loggingOf(flags.verbose) })
 * ```
 */
export function loggingOf(verbose: boolean | undefined): { logLevel: 'debug' | 'off'; logger: Logger } {
  return { logLevel: verbose ? 'debug' : 'off', logger: stderrLogger };
}

/** The SDK's log lines on stderr, one per line, with their fields as JSON. */
const stderrLogger = Object.fromEntries(
  (['debug', 'info', 'warn', 'error'] as const).map((level) => [
    level,
    (message: string, fields?: Record<string, unknown>) =>
      process.stderr.write(`[${level}] ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`),
  ]),
) as unknown as Logger;
