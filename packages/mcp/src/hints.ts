/**
 * What the server tells a model (in a tool error) and a person (on stderr) about an SDK error.
 * The SDK's messages speak to code (`raise \`timeout\``, `client.messages.reconcile(...)`): here
 * those sentences become what a model or the person running the server can act on, and the advice
 * names what the server knows (the scope a key lacked, the tool to call), never a placeholder.
 */
import {
  DeliveryTimeoutError,
  NotFoundError,
  RateLimitError,
  ResponseValidationError,
  SendOutcomeUnknownError,
} from 'tenant-messaging';
import { ENV, sharedAdvice } from 'tenant-messaging-bin-kit';

/** What a result or a report shows of an error: its message, and what to do next. */
export interface Explained {
  readonly message: string;
  readonly advice: string | undefined;
}

/** Sentences of the SDK's messages that speak to code, as the server says them. */
const PHRASES: readonly (readonly [sdk: string, said: string])[] = [
  // DeliveryTimeoutError
  ['poll again later or raise `timeout`.', 'look again later.'],
  // APITimeoutError, also quoted as the cause of an unknown outcome
  [
    'Raise the `timeout` option if the service is slow, or check connectivity to the base URL.',
    'The service may be slow, or the network to the base URL down.',
  ],
  // SendOutcomeUnknownError: send_message looks for it in the logs itself
  [' Before sending again, reconcile: await client.messages.reconcile(error.params, { since: error.startedAt }).', ''],
  // ResponseValidationError
  ['The raw body is on error.body. ', ''],
  // The client's options, from the credentials
  ['Invalid MessagingClient options', 'Invalid tenant URL or API key'],
  [
    'Use https://, or pass allowInsecureHttp: true for a network you trust',
    'Use https:// (the server sends the key over plain http:// only to this machine)',
  ],
  ['pass the API key as apiKey', `give the key in ${ENV.apiKey} or through --api-key-file`],
];

/**
 * `text` with each code sentence of the SDK in the server's words.
 *
 * @example
 * ```ts
 * inPlainWords('Invalid MessagingClient options') // 'Invalid tenant URL or API key'
 * ```
 */
export function inPlainWords(text: string): string {
  let words = text;
  for (const [sdk, said] of PHRASES) if (words.includes(sdk)) words = words.replaceAll(sdk, () => said);
  return words;
}

/**
 * An error's message in plain words, and the advice for its class.
 *
 * @example
 * ```ts
 * const { message, advice } = explain(error) // advice: 'This key lacks the `usage.read` scope: ...'
 * ```
 */
export function explain(error: unknown): Explained {
  return { message: inPlainWords(error instanceof Error ? error.message : String(error)), advice: adviceFor(error) };
}

function adviceFor(error: unknown): string | undefined {
  if (error instanceof SendOutcomeUnknownError) {
    return 'Do not send it again blindly: look for it with list_messages first.';
  }
  if (error instanceof DeliveryTimeoutError) {
    const id = error.messageLogId;
    return `The message was sent; its delivery was not confirmed in time. Look again later with wait_for_delivery or get_message (id ${id}).`;
  }
  if (error instanceof NotFoundError) return 'Check the id: it is not one of this tenant’s.';
  if (error instanceof RateLimitError) return 'The tenant’s rate limit was reached: wait a moment, then run it again.';
  if (error instanceof ResponseValidationError) {
    return 'The service answered in a shape the API specification does not give: report it, with what the server logs with --verbose.';
  }
  return sharedAdvice(error);
}
