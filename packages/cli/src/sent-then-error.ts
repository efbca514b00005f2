/**
 * What a command ends with when something failed after its messages were accepted: a wait that
 * timed out or got a 403, a stop signal in the middle of a wait, a later step of the demo. The
 * send is not what failed, so the exit code says "sent" (5), never "failed" (1) or the signal's:
 * a script that trusts the code must not send the message again.
 */
export class SentThenError extends Error {
  override readonly name = 'SentThenError';

  constructor(
    /** The log ids of the messages accepted before `cause`. */
    readonly logIds: readonly number[],
    /** What failed after them (the wait's error, or the stop signal's reason). */
    override readonly cause: unknown,
  ) {
    super(`${sentWords(logIds)}, then: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * `message log 42 was sent`, or `message logs 42, 43 were sent`.
 *
 * @example
 * ```ts
 * sentWords([42]) // 'message log 42 was sent'
 * ```
 */
export function sentWords(logIds: readonly number[]): string {
  return logIds.length === 1 ? `message log ${logIds[0]} was sent` : `message logs ${logIds.join(', ')} were sent`;
}
