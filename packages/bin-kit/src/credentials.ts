/**
 * The credentials of a bin's client: `--base-url` and `--api-key-file`, else
 * `TENANT_MESSAGING_BASE_URL` and `TENANT_MESSAGING_API_KEY` (what the SDK's client reads itself),
 * checked before any request, and the secrets no output may show.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from './usage-error.js';

/**
 * The environment variables a bin reads: the SDK's own names (its client reads the same ones when
 * no option is given), so one set of variables serves a program and the bins.
 *
 * @example
 * ```ts
 * process.env[ENV.apiKey] // the key, when no --api-key-file is given
 * ```
 */
export const ENV = Object.freeze({
  baseUrl: 'TENANT_MESSAGING_BASE_URL',
  apiKey: 'TENANT_MESSAGING_API_KEY',
  logLevel: 'TENANT_MESSAGING_LOG',
});

/** The flags a bin reads its credentials from. */
export interface CredentialFlags {
  readonly baseUrl?: string | undefined;
  readonly apiKeyFile?: string | undefined;
  /** Refused: a key on the command line is visible through `ps` (see {@link credentialsFrom}). */
  readonly apiKey?: string | undefined;
  /** Every request and retry logged to stderr (the SDK's `debug` level: never the key). */
  readonly verbose?: boolean | undefined;
}

/** What a client is made from, and what must never be shown. */
export interface Credentials {
  /** `--base-url`, when given (else the client reads `TENANT_MESSAGING_BASE_URL`). */
  readonly baseUrl: string | undefined;
  /** The key of `--api-key-file`, when given (else the client reads `TENANT_MESSAGING_API_KEY`). */
  readonly apiKey: string | undefined;
  /** Every key in sight: the file's and the environment's. */
  readonly secrets: readonly string[];
}

/**
 * The credentials of `flags` and `env`. Missing ones are a UsageError naming the flags and
 * variables that give them (the SDK's message, "pass it", speaks to code).
 *
 * Why `--api-key` is refused rather than warned about: a key on the command line is readable by
 * every user of the machine through `ps` and stays in the shell's history; a warning would come
 * after it had leaked. The environment or a file keeps it out of both.
 *
 * @example
 * ```ts
 * const { baseUrl, apiKey } = await credentialsFrom({ apiKeyFile: '/run/secrets/tm-key' }, process.env)
 * ```
 */
export async function credentialsFrom(flags: CredentialFlags, env: NodeJS.ProcessEnv): Promise<Credentials> {
  if (flags.apiKey !== undefined) {
    throw new UsageError(
      `--api-key is refused: a key on the command line is visible to every user through \`ps\` and stays in your shell history. Set ${ENV.apiKey}, or put the key in a file and pass its path with --api-key-file.`,
    );
  }
  let apiKey: string | undefined;
  if (flags.apiKeyFile !== undefined) {
    try {
      apiKey = (await readFile(flags.apiKeyFile, 'utf8')).trim();
    } catch (error) {
      throw new UsageError(
        `--api-key-file: cannot read ${flags.apiKeyFile} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
    if (apiKey === '') throw new UsageError(`--api-key-file: ${flags.apiKeyFile} is empty`);
  }
  const missing = [
    ...(blank(flags.baseUrl ?? env[ENV.baseUrl])
      ? [`the tenant URL: pass --base-url (e.g. --base-url https://acme.example.com), or set ${ENV.baseUrl}`]
      : []),
    ...(blank(apiKey ?? env[ENV.apiKey])
      ? [`the API key: set ${ENV.apiKey}, or put the key in a file and pass its path with --api-key-file`]
      : []),
  ];
  if (missing.length > 0) throw new UsageError(`Missing credentials:\n${missing.map((m) => `  - ${m}`).join('\n')}`);
  const secrets = [env[ENV.apiKey]?.trim(), apiKey].filter((secret): secret is string => !!secret);
  return { baseUrl: flags.baseUrl, apiKey, secrets };
}

/** Unset, or only white space: what the SDK counts as missing. */
const blank = (value: string | undefined) => value === undefined || value.trim() === '';
