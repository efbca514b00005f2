/**
 * An error that stopped the server, as the person who started it reads it on stderr (its class,
 * its message, what to do next), and the exit code it ends with. The SDK's messages never carry
 * the API key, and nothing here adds it.
 */
import { ValidationError } from 'tenant-messaging';
import type { CredentialFlags } from 'tenant-messaging-bin-kit';
import { ENV, paint, UsageError } from 'tenant-messaging-bin-kit';
import { HELP_HINT } from '../shell/command.js';
import { EXIT } from '../shell/exit.js';
import { explain } from './hints.js';
import { issuesText } from './results.js';

/**
 * The report of `error` for stderr; `flags` say whether the credentials came from a flag (the
 * fields of a refused client option are named by what set them).
 *
 * @example
 * ```ts
 * process.stderr.write(report(error, flags))
 * ```
 */
export function report(error: unknown, flags: CredentialFlags = {}, stream = process.stderr): string {
  const name = error instanceof Error ? error.name : 'Error';
  const explained = explain(error);
  const message = error instanceof ValidationError ? credentialIssues(error, flags) : explained.message;
  const advice = error instanceof UsageError || error instanceof ValidationError ? HELP_HINT : explained.advice;
  // paint, not styleText: Node 20's styleText ignores its stream and NO_COLOR (redirected stderr got colour).
  const head = paint(['bold', 'red'], `${name}:`, stream);
  return `${head} ${message}${advice ? `\n${paint('yellow', `→ ${advice}`, stream)}` : ''}\n`;
}

/**
 * The exit code of the error the server stopped with: 2 for usage (nothing started), 1 otherwise.
 *
 * @example
 * ```ts
 * process.exitCode = exitCodeOf(error)
 * ```
 */
export function exitCodeOf(error: unknown): number {
  return error instanceof UsageError || error instanceof ValidationError ? EXIT.usage : EXIT.failed;
}

/** A ValidationError of the client's options, each field named by the flag or variable that set it. */
function credentialIssues(error: ValidationError, flags: CredentialFlags): string {
  const names = {
    baseUrl: flags.baseUrl === undefined ? ENV.baseUrl : '--base-url',
    apiKey: flags.apiKeyFile === undefined ? ENV.apiKey : '--api-key-file',
  };
  return issuesText(error, names);
}
