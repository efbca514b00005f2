import { styleText } from 'node:util';
import { AuthenticationError, NotFoundError, PermissionDeniedError, RateLimitError } from '../api-error.js';
import {
  APIConnectionError,
  DeliveryTimeoutError,
  OutcomeUnknownError,
  SendOutcomeUnknownError,
  ValidationError,
} from '../errors.js';
import { UsageError } from './exit-codes.js';

/**
 * An error as a person at a terminal needs it: its class, its message, and what to do next.
 * The SDK's messages never carry the API key, and nothing here adds it.
 *
 * @example
 * ```ts
 * process.stderr.write(report(error))
 * ```
 */
export function report(error: unknown, stream: NodeJS.WriteStream = process.stderr): string {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  const advice = adviceFor(error);
  const head = styleText(['bold', 'red'], `${name}:`, { stream });
  return `${head} ${message}${advice ? `\n${styleText('yellow', `→ ${advice}`, { stream })}` : ''}\n`;
}

function adviceFor(error: unknown): string | undefined {
  if (error instanceof SendOutcomeUnknownError) {
    return 'Do not send it again blindly. Run the same command with --reconcile: it searches the message logs for this send instead of sending twice.';
  }
  if (error instanceof OutcomeUnknownError)
    return 'Check on the service whether the request took effect before repeating it.';
  if (error instanceof DeliveryTimeoutError) {
    return 'The message was sent; its delivery was not confirmed in time. Look again later with `tenant-messaging get <id>`.';
  }
  if (error instanceof UsageError || error instanceof ValidationError)
    return 'See `tenant-messaging <command> --help`.';
  if (error instanceof AuthenticationError) {
    return 'Check the key: TENANT_MESSAGING_API_KEY, or the file given to --api-key-file.';
  }
  if (error instanceof PermissionDeniedError) return 'This key lacks the permission for it: use a key that has it.';
  if (error instanceof NotFoundError) return 'Check the id: it is not one of this tenant’s.';
  if (error instanceof RateLimitError)
    return 'The tenant’s rate limit was reached: wait, or lower --rate / --concurrency.';
  if (error instanceof APIConnectionError) {
    return `${error.neverSent ? 'Nothing was sent. ' : ''}Check the base URL (TENANT_MESSAGING_BASE_URL or --base-url) and the network.`;
  }
  return undefined;
}
