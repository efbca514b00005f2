/**
 * The advice both bins give for the SDK's errors whose remedy is the same wherever they are met:
 * the key, its scope, the service, the network. Each bin words the others itself (the command or
 * the tool to run next).
 */
import {
  APIConnectionError,
  AuthenticationError,
  InternalServerError,
  OutcomeUnknownError,
  PermissionDeniedError,
} from 'tenant-messaging';
import { ENV } from './credentials.js';

/**
 * What to do about `error`, when the remedy does not depend on the bin; undefined otherwise. A
 * bin checks its own cases first (a `SendOutcomeUnknownError` is an `OutcomeUnknownError` too).
 *
 * @example
 * ```ts
 * sharedAdvice(error) // 'This key lacks the `usage.read` scope: use a key that has it.'
 * ```
 */
export function sharedAdvice(error: unknown): string | undefined {
  if (error instanceof OutcomeUnknownError)
    return 'Check on the service whether the request took effect before repeating it.';
  if (error instanceof AuthenticationError) return `Check the key: ${ENV.apiKey}, or the file given to --api-key-file.`;
  if (error instanceof PermissionDeniedError) {
    // The scope of the endpoint that refused (the SDK knows it), not of every endpoint the bin
    // may have called: `send --wait` sends, then reads.
    const scope = error.requiredScope;
    return scope
      ? `This key lacks the \`${scope}\` scope: use a key that has it.`
      : 'This key lacks the permission for it: use a key that has it.';
  }
  if (error instanceof InternalServerError)
    return 'The service, or a proxy in front of it, failed (a read was retried first): try again later.';
  if (error instanceof APIConnectionError) {
    return `${error.neverSent ? 'Nothing was sent. ' : ''}Check the base URL (--base-url or ${ENV.baseUrl}) and the network.`;
  }
  return undefined;
}
