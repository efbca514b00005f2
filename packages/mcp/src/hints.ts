/**
 * What the server tells a model (in a tool error) and a person (on stderr) about an SDK error.
 * The SDK's messages speak to code (`raise \`timeout\``, `client.messages.reconcile(...)`): here
 * those sentences become what a model or the person running the server can act on, and the advice
 * names what the server knows (the scope a key lacked, the tool to call), never a placeholder.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  APIConnectionError,
  AuthenticationError,
  CHANNEL_NAMES,
  DeliveryTimeoutError,
  ENDPOINTS,
  InternalServerError,
  NotFoundError,
  OutcomeUnknownError,
  PermissionDeniedError,
  RateLimitError,
  type RequestTrace,
  ResponseValidationError,
  type Scope,
  SendOutcomeUnknownError,
} from 'tenant-messaging';
import { ENV } from './options.js';

/** What a result or a report shows of an error: its message, and what to do next. */
export interface Explained {
  readonly message: string;
  readonly advice: string | undefined;
}

const failedCalls = new WeakMap<object, string>();
const FAILURES = `tracing:${CHANNEL_NAMES.request}:error`;
let watchers = 0;

const onFailure = (message: unknown) => {
  const { error, endpoint } = message as RequestTrace;
  if (typeof error === 'object' && error !== null) failedCalls.set(error, endpoint);
};

/**
 * Remembers, for each call that fails, which endpoint failed it: the SDK publishes every call's
 * failure on `tenant-messaging:request` (diagnostics_channel), and a 403's advice names the scope
 * of that endpoint. Returns the call that stops watching: a channel left subscribed would make the
 * SDK trace every later call of the process.
 *
 * @example
 * ```ts
 * const stop = watchFailedCalls() // then explain(error).advice names the scope a 403 lacked
 * try { await serve() } finally { stop() }
 * ```
 */
export function watchFailedCalls(): () => void {
  if (watchers++ === 0) subscribe(FAILURES, onFailure);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--watchers === 0) unsubscribe(FAILURES, onFailure);
  };
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
  for (const [sdk, said] of PHRASES) if (words.includes(sdk)) words = words.replaceAll(sdk, said);
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
  if (error instanceof OutcomeUnknownError)
    return 'Check on the service whether the request took effect before repeating it.';
  if (error instanceof DeliveryTimeoutError) {
    const id = error.messageLogId;
    return `The message was sent; its delivery was not confirmed in time. Look again later with wait_for_delivery or get_message (id ${id}).`;
  }
  if (error instanceof AuthenticationError) return `Check the key: ${ENV.apiKey}, or the file given to --api-key-file.`;
  if (error instanceof PermissionDeniedError) {
    const scope = scopeOf(failedCalls.get(error));
    return scope
      ? `This key lacks the \`${scope}\` scope: use a key that has it.`
      : 'This key lacks the permission for it: use a key that has it.';
  }
  if (error instanceof NotFoundError) return 'Check the id: it is not one of this tenant’s.';
  if (error instanceof RateLimitError) return 'The tenant’s rate limit was reached: wait a moment, then run it again.';
  if (error instanceof InternalServerError)
    return 'The service, or a proxy in front of it, failed (a read was retried first): try again later.';
  if (error instanceof ResponseValidationError) {
    return 'The service answered in a shape the API specification does not give: report it, with what the server logs with --verbose.';
  }
  if (error instanceof APIConnectionError) {
    return `${error.neverSent ? 'Nothing was sent. ' : ''}Check the base URL (--base-url or ${ENV.baseUrl}) and the network.`;
  }
  return undefined;
}

/** The scope the endpoint `name` needs (null: none), from the SDK's endpoint table; undefined when unknown. */
function scopeOf(name: string | undefined): Scope | null | undefined {
  if (name === undefined || !Object.hasOwn(ENDPOINTS, name)) return undefined;
  return ENDPOINTS[name as keyof typeof ENDPOINTS].scope;
}
