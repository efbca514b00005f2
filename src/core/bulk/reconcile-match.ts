import type { MessageLog } from '../../types/message-log.js';
import type { SentParams } from '../../types/send.js';

/** A log's `sent_at` in ms, or undefined when it has none or it does not parse. */
export function sentAt(log: MessageLog): number | undefined {
  if (log.sent_at === null) return undefined;
  const at = Date.parse(log.sent_at);
  return Number.isNaN(at) ? undefined : at;
}

/** `voice` messages may be logged as `audio` (spec section 2.1). */
function sameType(sent: string, logged: string): boolean {
  return sent === logged || (sent === 'voice' && logged === 'audio');
}

/**
 * Whether the logs of a page run newest first (the usual Laravel order); assumed when unclear.
 *
 * @example
 * ```ts
 * newestFirst(page.data) // true for Laravel's `latest()`
 * ```
 */
export function newestFirst(logs: readonly MessageLog[]): boolean {
  const times = logs.map(sentAt).filter((at): at is number => at !== undefined);
  const first = times[0];
  const last = times[times.length - 1];
  return first === undefined || last === undefined || first >= last;
}

/** What a log is compared with: the send, its sender number's id when known, its window's start. */
export interface MatchTarget {
  readonly params: SentParams;
  readonly senderId: number | undefined;
  /** The send's `content`, with `''` as `null` (the service stores an empty content as null). */
  readonly content: string | null;
  readonly windowStart: number;
}

/**
 * Whether `log` may be the send: `certain` when everything the spec lets us compare agrees and
 * the recipient is echoed, `uncertain` when it agrees but the recipient is not echoed, else undefined.
 *
 * @example
 * ```ts
 * matchOf(log, { params, senderId: 7, content: params.content ?? null, windowStart }) // 'certain'
 * ```
 */
export function matchOf(log: MessageLog, target: MatchTarget): 'certain' | 'uncertain' | undefined {
  const { params, senderId, content, windowStart } = target;
  const at = sentAt(log);
  if (at !== undefined && at < windowStart) return undefined;
  if (!sameType(params.type, log.message_type)) return undefined;
  if ((log.content === '' ? null : log.content) !== content) return undefined;
  const payload = log.request_payload as Record<string, unknown>;
  if (senderId !== undefined && log.sender_number_id !== senderId) return undefined;
  if (
    senderId === undefined &&
    payload['sender_phone'] !== undefined &&
    payload['sender_phone'] !== params.sender_phone
  ) {
    return undefined;
  }
  if (payload['to_phone'] === undefined) return 'uncertain';
  return payload['to_phone'] === params.to_phone ? 'certain' : undefined;
}

/**
 * Whether every log of a page was sent before `windowStart` (a page with none is not).
 *
 * @example
 * ```ts
 * allOlderThan(page.data, since.getTime() - 60_000)
 * ```
 */
export function allOlderThan(logs: readonly MessageLog[], windowStart: number): boolean {
  return logs.length > 0 && logs.every((log) => (sentAt(log) ?? Number.POSITIVE_INFINITY) < windowStart);
}
