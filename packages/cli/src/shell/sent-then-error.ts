/** The exit code "sent" (`EXIT.sent`, which imports this file). */
const SENT = 5;

/**
 * What a command ends with when something failed after its messages were accepted: a wait that
 * timed out or got a 403, a stop signal in the middle of a wait, a later step of the demo. The
 * send is not what failed, so the exit code says "sent" (5), never "failed" (1) or the signal's:
 * a script that trusts the code must not send the message again. A batch (`send-many`) that also
 * ended a more urgent way (stopped, rows unknown or refused) gives that code instead.
 *
 * @example
 * ```ts
 * throw new SentThenError([42], error) // exit code 5; the report says to follow log 42
 * ```
 */
export class SentThenError extends Error {
  override readonly name = 'SentThenError';

  constructor(
    /** The log ids of the messages accepted before `cause`. */
    readonly logIds: readonly number[],
    /** What failed after them (the wait's error, or the stop signal's reason). */
    override readonly cause: unknown,
    /**
     * The exit code: `send-many` gives its batch's when that says more (128 + n, 3, 1).
     *
     * @default 5
     */
    readonly exitCode: number = SENT,
  ) {
    super(`${sentWords(logIds)}, then: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * `message log 42 was sent`, `message logs 42, 43 were sent`, or for a batch its count with its
 * first and last ids (the `--json` summary lists them all).
 *
 * @example
 * ```ts
 * sentWords([42]) // 'message log 42 was sent'
 * ```
 */
export function sentWords(logIds: readonly number[]): string {
  if (logIds.length === 1) return `message log ${logIds[0]} was sent`;
  if (logIds.length <= SHOWN) return `message logs ${logIds.join(', ')} were sent`;
  return `${logIds.length} messages were sent (message logs ${logIds.slice(0, 3).join(', ')}, …, ${logIds.at(-1)})`;
}

/** The most log ids a sentence lists one by one. */
const SHOWN = 5;
