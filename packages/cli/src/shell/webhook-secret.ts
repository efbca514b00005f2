import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { UsageError } from './exit-codes.js';
import { keepSecrets } from './secrets.js';

/** The environment variable `listen` reads its signing secret from. */
export const SECRET_ENV = 'TENANT_MESSAGING_WEBHOOK_SECRET';

/** Where `listen`'s signing secret came from: `source` names it in messages, the value never is. */
export interface WebhookSecret {
  readonly value: string;
  readonly source: 'file' | 'env' | 'generated';
  /** How a message names it, e.g. `--secret-file ./hooks.secret`. */
  readonly name: string;
}

/**
 * The `whsec_` secret `listen` signs with: `--secret-file <path>`, else `TENANT_MESSAGING_WEBHOOK_SECRET`,
 * else a new one (24 random bytes in base64, as Standard Webhooks secrets are), which the caller
 * prints once so the receiver can be given it.
 *
 * Why `--secret` is refused rather than warned about, as `--api-key` is: a secret on the command
 * line is readable by every user of the machine through `ps` and stays in the shell's history; a
 * warning would come after it had leaked. Its format is checked by relayWebhooks, before any request.
 *
 * @example
 * ```ts
 * const secret = await webhookSecret({ secretFile: '/run/secrets/hooks' })
 * ```
 */
export async function webhookSecret(flags: {
  readonly secretFile?: string | undefined;
  readonly secret?: string | undefined;
}): Promise<WebhookSecret> {
  // Given, a secret is never shown by what the bin writes (secrets.ts): refused, and read from a file too.
  keepSecrets([flags.secret]);
  if (flags.secret !== undefined) {
    throw new UsageError(
      `--secret is refused: a secret on the command line is visible to every user through \`ps\` and stays in your shell history. Set ${SECRET_ENV}, or put the secret in a file and pass its path with --secret-file.`,
    );
  }
  if (flags.secretFile !== undefined) {
    let value: string;
    try {
      value = (await readFile(flags.secretFile, 'utf8')).trim();
    } catch (error) {
      throw new UsageError(
        `--secret-file: cannot read ${flags.secretFile} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
    if (value === '') throw new UsageError(`--secret-file: ${flags.secretFile} is empty`);
    keepSecrets([value]);
    return { value, source: 'file', name: `--secret-file ${flags.secretFile}` };
  }
  // An empty variable counts as unset: a fresh secret is then made and shown, so nothing signs with ''.
  const fromEnv = process.env[SECRET_ENV]?.trim();
  keepSecrets([fromEnv]);
  if (fromEnv) return { value: fromEnv, source: 'env', name: SECRET_ENV };
  return { value: `whsec_${randomBytes(24).toString('base64')}`, source: 'generated', name: 'the generated secret' };
}
