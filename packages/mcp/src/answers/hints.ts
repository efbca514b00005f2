/**
 * What the server tells a model (in a tool error) and a person (on stderr) about an SDK error,
 * from its `code` and fields and never from the English of its message (the SDK may reword it):
 * the message in plain words (bin-kit's plainMessage), and advice that names what the server
 * knows (the scope a key lacked, the tool to call), never a placeholder.
 */
import { type ErrorCode, MessagingError } from 'tenant-messaging';
import { adviceByCode, type BinTerms, plainMessage } from 'tenant-messaging-bin-kit';

/** What a result or a report shows of an error: its message, and what to do next. */
export interface Explained {
  readonly message: string;
  readonly advice: string | undefined;
}

/** What the server calls its ways of doing things, for the advice both bins word alike. */
const TERMS: BinTerms = {
  listLogs: 'list_messages',
  lookAgain: (id) => `wait_for_delivery or get_message (id ${id})`,
  logIdSource: 'the id that send_message returned',
  verbose: 'what the server logs with --verbose',
};
const SHARED = adviceByCode(TERMS);

/** The advice of each code the server words itself; every other code's is SHARED's. */
const OWN: Partial<Record<ErrorCode, (error: MessagingError) => string>> = {
  'validation.params': () => 'Fix the arguments named above, then call the tool again: nothing was sent.',
};

/**
 * An error's message in plain words, and the advice for its code.
 *
 * @example
 * ```ts
 * const { message, advice } = explain(error) // advice: 'This key lacks the `usage.read` scope: ...'
 * ```
 */
export function explain(error: unknown): Explained {
  if (!(error instanceof MessagingError)) {
    return { message: error instanceof Error ? error.message : String(error), advice: undefined };
  }
  return { message: plainMessage(error), advice: (OWN[error.code] ?? SHARED[error.code])(error) };
}
