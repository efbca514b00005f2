/**
 * What the bin tells the person at the shell, in the command line's words. The SDK's errors speak
 * to code (`raise \`timeout\``, `apiKey`, `client.messages.reconcile(...)`): at the CLI's boundary
 * those become the flags and environment variables a person can set, and each hint names what the
 * bin knows (the command that ran, the log id, the scope the key lacks), never a placeholder. The
 * SDK's own messages, for library users, stay as they are.
 */
import {
  DeliveryTimeoutError,
  NotFoundError,
  RateLimitError,
  ResponseValidationError,
  SendOutcomeUnknownError,
  ValidationError,
} from 'tenant-messaging';
import { ENV, sharedAdvice } from 'tenant-messaging-bin-kit';
import { UsageError } from './exit-codes.js';
import { SentThenError } from './sent-then-error.js';

/** Where an error the bin reports came from: the command that ran and the options it was given. */
export interface Where {
  /** The command's name, e.g. `send`. */
  readonly command?: string | undefined;
  /** The command's options as parsed, e.g. `{ text: 'hi', timeout: '60s' }`. */
  readonly flags?: Readonly<Record<string, unknown>> | undefined;
  /** The global options (`baseUrl`, `apiKeyFile`): whether the credentials came from a flag. */
  readonly globals?: Readonly<Record<string, unknown>> | undefined;
}

/** What a report prints of an error: its message, and what to do next. */
export interface Explained {
  readonly message: string;
  readonly advice: string | undefined;
}

const places = new WeakMap<object, Where>();

/**
 * Tags `error` with where it was met, for {@link explain}; returns it, to be thrown again.
 *
 * @example
 * ```ts
 * catch (error) { throw located(error, { command: 'send', flags: command.opts() }) }
 * ```
 */
export function located<E>(error: E, where: Where): E {
  if (typeof error === 'object' && error !== null && !places.has(error)) places.set(error, where);
  // What failed after a send is reported as itself (report.ts): it needs the same words.
  if (error instanceof SentThenError) located(error.cause, where);
  return error;
}

/**
 * The hint after a usage error: the help of the command that ran, or the bin's own.
 *
 * @example
 * ```ts
 * helpHint('send') // 'See `tenant-messaging send --help`.'
 * ```
 */
export function helpHint(command?: string): string {
  return `See \`tenant-messaging ${command === undefined ? '' : `${command} `}--help\`.`;
}

/**
 * An error as the report shows it to a person: its message with the SDK's code words put in the
 * command line's (a ValidationError's fields named by the flags that set them), and the advice
 * for its class, naming the command, the log id or the scope where the bin knows them.
 *
 * @example
 * ```ts
 * const { message, advice } = explain(error) // advice: 'See `tenant-messaging send --help`.'
 * ```
 */
export function explain(error: unknown): Explained {
  const where = (typeof error === 'object' && error !== null && places.get(error)) || {};
  const message =
    error instanceof ValidationError
      ? issuesText(error, where)
      : inShellWords(error instanceof Error ? error.message : String(error), where);
  return { message, advice: adviceFor(error, where) };
}

/** The flag that sets how long a command waits for a delivery, by command. */
const TIMEOUT_FLAGS: Readonly<Record<string, string>> = {
  send: '--timeout',
  wait: '--timeout',
  'send-many': '--track-timeout',
};

/** The media flag a `send` was given. */
const mediaFlag = (where: Where) =>
  ['--image', '--voice', '--document'].find((flag) => where.flags?.[flag.slice(2)] !== undefined) ?? '--image';

type Name = string | ((where: Where) => string);

/**
 * What the SDK calls a field (an issue's path, up to its first dot), as the command line names
 * what sets it: the client's options for every command, and each command's parameters.
 */
const FIELDS: Readonly<Record<string, Readonly<Record<string, Name>>>> = {
  '': {
    baseUrl: (where) => (where.globals?.['baseUrl'] === undefined ? ENV.baseUrl : '--base-url'),
    apiKey: (where) => (where.globals?.['apiKeyFile'] === undefined ? ENV.apiKey : '--api-key-file'),
  },
  send: {
    to_phone: '--to',
    sender_phone: '--from',
    sender_number_id: '--from',
    content: (where) => (where.flags?.['text'] === undefined ? '--caption' : '--text'),
    type: '--text, --image, --voice or --document',
    // mediaFromPath's arguments, and the media part they make
    media: mediaFlag,
    path: mediaFlag,
    filename: mediaFlag,
    contentType: mediaFlag,
  },
  lookup: { phone: 'the phone', sender_phone: '--from' },
  request: { method: 'the method', path: 'the path', body: '--data' },
};

/**
 * Sentences of the SDK's messages that speak to code, as the command line says them. Matched
 * exactly: test/integration/messages-shell-hints.test.ts builds each of these errors from the SDK and fails
 * when a code word gets through (the SDK reworded a sentence).
 */
const PHRASES: readonly (readonly [sdk: string, cli: (where: Where) => string])[] = [
  // DeliveryTimeoutError
  [
    'poll again later or raise `timeout`.',
    (where) => {
      const flag = TIMEOUT_FLAGS[where.command ?? ''];
      return flag === undefined ? 'look again later.' : `look again later or raise ${flag}.`;
    },
  ],
  // APITimeoutError, also quoted as the cause of an unknown outcome: the bin has no flag for it
  [
    'Raise the `timeout` option if the service is slow, or check connectivity to the base URL.',
    () => 'The service may be slow, or the network to the base URL down.',
  ],
  // SendOutcomeUnknownError: the advice says how the command line reconciles
  [
    ' Before sending again, reconcile: await client.messages.reconcile(error.params, { since: error.startedAt }).',
    () => '',
  ],
  // ResponseValidationError
  ['The raw body is on error.body. ', () => ''],
  // A media file that failed while it was sent
  ['; the original error is error.cause', () => ''],
  // The client's options, from the credentials
  ['Invalid MessagingClient options', () => 'Invalid tenant URL or API key'],
  [
    'Use https://, or pass allowInsecureHttp: true for a network you trust',
    () => 'Use https:// (the command line sends the key over plain http:// only to this machine)',
  ],
  ['pass the API key as apiKey', () => `give the key in ${ENV.apiKey} or through --api-key-file`],
  // mediaFromPath, behind --image, --voice and --document
  ['Invalid mediaFromPath arguments', () => 'Invalid media file'],
  // client.request(), behind the request command
  ['(pass query parameters as query)', () => '(the request command sends no query string)'],
];

/** `text` with each code sentence of the SDK in the command line's words. */
function inShellWords(text: string, where: Where): string {
  let words = text;
  for (const [sdk, cli] of PHRASES) {
    // A function, not a string: a `$&` or `$'` in what is put in is text, not a replacement pattern.
    const said = cli(where);
    if (words.includes(sdk)) words = words.replaceAll(sdk, () => said);
  }
  return words;
}

/** A ValidationError's message as its constructor writes it, each field named as the command line sets it. */
function issuesText(error: ValidationError, where: Where): string {
  const end = error.message.indexOf(':\n');
  const what = inShellWords(end === -1 ? error.message : error.message.slice(0, end), where);
  const names = { ...FIELDS[''], ...FIELDS[where.command ?? ''] };
  const lines = error.issues.map((issue) => {
    const name = names[issue.path.split('.')[0] ?? ''];
    const field = name === undefined ? issue.path || '(value)' : typeof name === 'string' ? name : name(where);
    return `  - ${field}: ${inShellWords(issue.message, where)}`;
  });
  return `${what}:\n${lines.join('\n')}`;
}

function adviceFor(error: unknown, where: Where): string | undefined {
  const { command } = where;
  if (error instanceof SendOutcomeUnknownError) {
    // Only `send` has --reconcile; with it, the search has just been made.
    if (command !== 'send') return 'Do not send it again blindly: look for it with `tenant-messaging list` first.';
    return where.flags?.['reconcile'] === true
      ? 'It was not found in the message logs yet: look again in a minute with `tenant-messaging list` before sending it again.'
      : // Running the same command again, --reconcile or not, would send it a second time if it was stored.
        'Do not send it again blindly: look for it with `tenant-messaging list` first. Next time, --reconcile makes send search the message logs itself when an answer is lost.';
  }
  if (error instanceof DeliveryTimeoutError) {
    const id = error.messageLogId;
    return `The message was sent; its delivery was not confirmed in time. Look again later with \`tenant-messaging wait ${id}\` or \`tenant-messaging get ${id}\`.`;
  }
  if (error instanceof UsageError || error instanceof ValidationError) return helpHint(command);
  if (error instanceof NotFoundError) {
    return command === 'request'
      ? 'Check the path: the API has no such endpoint, or the id in it is not one of this tenant’s.'
      : 'Check the id: it is not one of this tenant’s.';
  }
  if (error instanceof RateLimitError) {
    return command === 'send-many'
      ? 'The tenant’s rate limit was reached: wait, or lower --rate / --concurrency.'
      : 'The tenant’s rate limit was reached: wait a moment, then run it again.';
  }
  if (error instanceof ResponseValidationError) {
    return 'The service answered in a shape the API specification does not give: report it, with what the same command prints with --verbose.';
  }
  return sharedAdvice(error);
}
