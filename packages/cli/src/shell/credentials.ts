import type { Logger } from 'tenant-messaging';
import { MessagingClient } from 'tenant-messaging';
import { type CredentialFlags, type Credentials, credentialsFrom, redactingLogger } from 'tenant-messaging-bin-kit';
import { keepSecrets, knownSecrets } from './secrets.js';

/** The global options every API command reads its credentials from. */
export type CredentialOptions = CredentialFlags;

/**
 * A client from `--base-url` and `--api-key-file`, else `TENANT_MESSAGING_BASE_URL` and
 * `TENANT_MESSAGING_API_KEY` (the SDK's own defaults), checked as every bin checks them
 * (`credentialsFrom`: `--api-key` refused, what is missing named with what gives it).
 *
 * @example
 * ```ts
 * const client = await clientFrom({ apiKeyFile: '/run/secrets/tm-key' })
 * ```
 */
export async function clientFrom(options: CredentialOptions): Promise<MessagingClient> {
  const { baseUrl, apiKey } = await credentialsOf(options, process.env);
  return new MessagingClient({
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...loggingOf(options.verbose),
  });
}

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

/**
 * The credentials of `options` and `env` (credentialsFrom), their keys kept among the secrets
 * nothing the bin writes may show.
 *
 * @example
 * ```ts
 * const { baseUrl, apiKey } = await credentialsOf({ apiKeyFile: '/run/secrets/tm-key' }, process.env)
 * ```
 */
export async function credentialsOf(options: CredentialOptions, env: NodeJS.ProcessEnv): Promise<Credentials> {
  keepSecrets([options.apiKey]);
  const credentials = await credentialsFrom(options, env);
  keepSecrets(credentials.secrets);
  return credentials;
}

/** The SDK's log lines on stderr, one per line, with their fields as JSON, every known secret redacted. */
const stderrLogger = redactingLogger(knownSecrets(), (line) => process.stderr.write(line));
