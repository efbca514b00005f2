import { type Issue, ValidationError } from '../../index.js';
import type { StoredParams } from '../store/types.js';
import type { EnqueueOptions, QuietHoursOptions } from '../types.js';
import { requirePhonePeer } from './phone-peer.js';
import { checkQuietHours, quietUntil, quietWindow } from './quiet-hours.js';
import { noCommonMoment, RECIPIENT_ZONES, readRecipient } from './recipient-zones.js';
import type { QuietWindow } from './types.js';

const WHAT = 'Invalid enqueue options';

/** When a send may go, as the enqueue options say: checked, the queue's quiet hours applied. */
export interface Timing {
  /** Not before this (ms since the epoch), when given. */
  readonly sendAt: number | undefined;
  /** The quiet hours that apply to this message, if any. */
  readonly quietHours: QuietHoursOptions | undefined;
}

/** Quiet hours as a job keeps them: the window and the zones it is read in, resolved once at enqueue. */
export interface StoredQuiet extends QuietWindow {
  readonly zones: readonly string[];
}

/** How a send is stored: after how long it may start, the quiet hours the worker checks again, and what to announce. */
export interface Plan {
  /** Ms from now until the job may start (BullMQ's `delay`); 0 for at once. */
  readonly delay: number;
  readonly quiet: StoredQuiet | undefined;
  /** `scheduled` (its `sendAt`) or `quiet-hours` (held past it), with when it may go; none when due now. */
  readonly announce: { readonly status: 'scheduled' | 'quiet-hours'; readonly until: number } | undefined;
  /**
   * The canonical form of `to_phone`, when its quiet hours are the recipient's (parsed for them):
   * stored with the send, so that a worker's per-recipient lane does not parse it again.
   */
  readonly recipient?: string;
}

/**
 * Checks a queue's `quietHours` option; `'recipient'` needs libphonenumber-js, an optional peer
 * dependency, so the queue is refused at once when it is not installed.
 */
export function checkQueueQuietHours(value: unknown): QuietHoursOptions | undefined {
  if (value === undefined) return undefined;
  const issues = checkQuietHours(value, 'quietHours');
  if (issues.length > 0)
    throw new ValidationError('Invalid MessagingQueue options', issues, { code: 'validation.options' });
  const checked = value as QuietHoursOptions;
  if (checked.timeZone === 'recipient') requirePhonePeer(RECIPIENT_ZONES);
  return checked;
}

/**
 * Checks `sendAt` and `quietHours` of one send (before any I/O); the queue's quiet hours apply
 * unless the send gives its own or `null`. `'recipient'` without libphonenumber-js installed is
 * refused here too, before anything is stored.
 */
export function checkTiming(options: EnqueueOptions, queueQuiet: QuietHoursOptions | undefined, path = ''): Timing {
  const issues: Issue[] = [];
  const { sendAt, quietHours } = options;
  if (sendAt !== undefined && !(sendAt instanceof Date && Number.isFinite(sendAt.getTime()))) {
    issues.push({
      path: `${path}sendAt`,
      message: `must be a valid Date, e.g. new Date(Date.now() + 3_600_000), got ${describe(sendAt)}`,
    });
  }
  if (quietHours !== undefined && quietHours !== null) issues.push(...checkQuietHours(quietHours, `${path}quietHours`));
  if (issues.length > 0) throw new ValidationError(WHAT, issues);
  const applied = quietHours === null ? undefined : (quietHours ?? queueQuiet);
  if (applied?.timeZone === 'recipient') requirePhonePeer(RECIPIENT_ZONES);
  return { sendAt: sendAt?.getTime(), quietHours: applied };
}

/**
 * When the send may go: its `sendAt`, pushed past the quiet hours it falls in, in every zone they
 * are read in. `'recipient'` reads the zones of `to_phone`'s country; a country whose zones are
 * never all outside the window at once is a `ValidationError` (give the message its own zone).
 */
export async function planSend(params: StoredParams, timing: Timing, now: number): Promise<Plan> {
  const due = Math.max(now, timing.sendAt ?? now);
  const hours = timing.quietHours;
  const scheduled = timing.sendAt !== undefined && timing.sendAt > now;
  if (hours === undefined) {
    return {
      delay: due - now,
      quiet: undefined,
      announce: scheduled ? { status: 'scheduled', until: due } : undefined,
    };
  }
  const window = quietWindow(hours);
  // One parse of to_phone: its zones now, its canonical form kept for the worker's lanes.
  const recipient = hours.timeZone === 'recipient' ? await readRecipient(params.to_phone) : undefined;
  const zones = recipient === undefined ? [hours.timeZone] : recipient.zones;
  const until = quietUntil(due, window, zones);
  if (until === undefined) throw noCommonMoment(recipient?.country ?? 'its country', zones, window);
  const kept = { quiet: { ...window, zones }, ...(recipient && { recipient: recipient.canonical }) };
  if (until > due) return { delay: until - now, ...kept, announce: { status: 'quiet-hours', until } };
  return { delay: due - now, ...kept, announce: scheduled ? { status: 'scheduled', until: due } : undefined };
}

function describe(value: unknown): string {
  if (value instanceof Date) return 'an invalid Date';
  if (typeof value === 'string') return `the string '${value}' (pass new Date('${value}'))`;
  if (typeof value === 'number') return `the number ${value} (pass new Date(${value}))`;
  return typeof value;
}
