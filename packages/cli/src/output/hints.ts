/**
 * What the bin tells the person at the shell, in the command line's words, from each error's
 * `code` and fields and never from the English of its message (the SDK may reword it): the
 * message in plain words (bin-kit's plainMessage, a ValidationError's fields named by the flags
 * that set them), and advice that names what the bin knows (the command that ran, the log id, the
 * scope the key lacks), never a placeholder.
 */
import { type DeliveryTimeoutError, type ErrorCode, MessagingError, ValidationError } from 'tenant-messaging';
import { adviceByCode, type BinTerms, ENV, plainIssues, plainMessage } from 'tenant-messaging-bin-kit';
import { UsageError } from '../shell/exit-codes.js';
import { SentThenError } from '../shell/sent-then-error.js';

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
      : error instanceof MessagingError
        ? plainMessage(error)
        : error instanceof Error
          ? error.message
          : String(error);
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

/** A ValidationError in the command line's words: each field named as the command line sets it. */
function issuesText(error: ValidationError, where: Where): string {
  const names = { ...FIELDS[''], ...FIELDS[where.command ?? ''] };
  return plainIssues(error, (path) => {
    const name = names[path.split('.')[0] ?? ''];
    return typeof name === 'function' ? name(where) : name;
  });
}

/** What the command line calls its ways of doing things, for the advice both bins word alike. */
const TERMS: BinTerms = {
  listLogs: '`tenant-messaging list`',
  lookAgain: (id) => `\`tenant-messaging wait ${id}\` or \`tenant-messaging get ${id}\``,
  logIdSource: 'the id that send printed',
  verbose: 'what the same command prints with --verbose',
};
const SHARED = adviceByCode(TERMS);

/** The advice of each code, where the command that ran changes it; every other code's is SHARED's. */
const OWN: Partial<Record<ErrorCode, (error: MessagingError, where: Where) => string>> = {
  'send.outcome_unknown': (_error, where) => {
    // Only `send` has --reconcile; with it, the search has just been made.
    if (where.command !== 'send') return SHARED['send.outcome_unknown'](_error);
    return where.flags?.['reconcile'] === true
      ? 'It was not found in the message logs yet: look again in a minute with `tenant-messaging list` before sending it again.'
      : // Running the same command again, --reconcile or not, would send it a second time if it was stored.
        'Do not send it again blindly: look for it with `tenant-messaging list` first. Next time, --reconcile makes send search the message logs itself when an answer is lost.';
  },
  'delivery.timeout': (error, where) => {
    const flag = TIMEOUT_FLAGS[where.command ?? ''];
    const id = (error as DeliveryTimeoutError).messageLogId;
    return `The message was sent; its delivery was not confirmed in time. Look again later with ${TERMS.lookAgain(id)}${flag ? `, or raise ${flag}` : ''}.`;
  },
  'validation.params': (_error, where) => helpHint(where.command),
  'validation.options': (error, where) => `${SHARED['validation.options'](error)} ${helpHint(where.command)}`,
  // The request command's path is the person's own: it is the first suspect, the tenant URL the next.
  'not_found.route': (error, where) =>
    where.command === 'request'
      ? `Check the path: the API has no such endpoint. If the path is right, ${lowerFirst(SHARED['not_found.route'](error))}`
      : SHARED['not_found.route'](error),
  'not_found.resource': (error, where) =>
    where.command === 'request'
      ? 'Check the path: the API has no such endpoint, or the id in it is not one of this tenant’s.'
      : SHARED['not_found.resource'](error),
  'rate_limit.exceeded': (error, where) =>
    where.command === 'send-many'
      ? 'The tenant’s rate limit was reached: wait, or lower --rate / --concurrency.'
      : SHARED['rate_limit.exceeded'](error),
};

function adviceFor(error: unknown, where: Where): string | undefined {
  if (error instanceof MessagingError) return (OWN[error.code] ?? SHARED[error.code])(error, where);
  if (error instanceof UsageError) return helpHint(where.command);
  return undefined;
}

/** `check the tenant URL …`: advice run on after another sentence. */
function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
