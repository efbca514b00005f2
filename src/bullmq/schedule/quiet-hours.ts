/**
 * Quiet hours: whether an instant falls inside a daily window of local wall-clock time, and the
 * earliest instant at which it no longer does in every zone concerned. Pure arithmetic on offsets
 * read through Intl, so it is exact across daylight-saving changes and cheap enough per message.
 */
import type { Issue } from '../../index.js';
import { checkKnownKeys, describeValue, isPlainObject, type KnownKeys } from '../../seam/option-checks.js';
import type { QuietHours, QuietWindow } from './types.js';
import { isTimeZone, modulo, offsetAt, offsetChange } from './zone-offset.js';

export type { QuietHours, QuietWindow } from './types.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** How far `quietUntil` looks: a day, as windows repeat daily, and room for a clock change. */
const HORIZON = 2 * DAY;

const KEYS: KnownKeys<QuietHours> = { start: true, end: true, timeZone: true };
const CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$/;

/**
 * Every problem with a `quietHours` value, each naming its field under `path`: not an object, an
 * unknown key, a `start` or `end` that is not `'HH:MM'` on a 24-hour clock, a `start` equal to `end`,
 * a `timeZone` that is neither a zone the runtime knows nor `'recipient'`. An empty list means valid.
 * The caller decides what `undefined` (not given) and `null` (none for this message) mean.
 *
 * @example
 * ```ts
 * checkQuietHours({ start: '9pm', end: '08:00', timeZone: 'recipient' }, 'quietHours')
 * // [{ path: 'quietHours.start', message: "must be 'HH:MM' (24 h), such as '21:00'; got '9pm'" }]
 * ```
 */
export function checkQuietHours(value: unknown, path: string): Issue[] {
  if (!isPlainObject(value)) {
    return [
      {
        path,
        message: `must be an object such as { start: '21:00', end: '08:00', timeZone: 'recipient' }; got ${shown(value)}`,
      },
    ];
  }
  const issues: Issue[] = [];
  const unknown: Issue[] = [];
  checkKnownKeys(value, KEYS, ` of ${path}`, unknown);
  for (const issue of unknown) issues.push({ path: `${path}.${issue.path}`, message: issue.message });
  const start = checkClock(value['start'], `${path}.start`, '21:00', issues);
  const end = checkClock(value['end'], `${path}.end`, '08:00', issues);
  if (start !== undefined && start === end) {
    issues.push({
      path: `${path}.end`,
      message:
        `must differ from start ('${start}'): a window from a time to the same time could mean no quiet hours ` +
        `or the whole day; give the end of the quiet time, such as '08:00', or leave quietHours out to send at any hour`,
    });
  }
  const timeZone = value['timeZone'];
  if (typeof timeZone !== 'string' || (timeZone !== 'recipient' && !isTimeZone(timeZone))) {
    issues.push({
      path: `${path}.timeZone`,
      message:
        `must be an IANA time zone that this runtime knows, such as 'America/New_York', or 'recipient' ` +
        `for the zone of the recipient's country; got ${shown(timeZone)}`,
    });
  }
  return issues;
}

/** Checks one `'HH:MM'`, and returns it when valid. */
function checkClock(value: unknown, path: string, example: string, issues: Issue[]): string | undefined {
  if (typeof value === 'string' && CLOCK.test(value)) return value;
  issues.push({ path, message: `must be 'HH:MM' (24 h), such as '${example}'; got ${shown(value)}` });
  return undefined;
}

/** A value as an error message shows it: a string as the caller typed it, anything else described. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value !== 'string') return describeValue(value);
  return `'${value.slice(0, 40)}'${value.length > 40 ? '…' : ''}`;
}

/**
 * The window of checked quiet hours (see `checkQuietHours`) as minutes of the day.
 *
 * @example
 * ```ts
 * quietWindow({ start: '21:00', end: '08:00' }) // { startMinute: 1260, endMinute: 480 }
 * ```
 */
export function quietWindow(hours: Pick<QuietHours, 'start' | 'end'>): QuietWindow {
  return { startMinute: minuteOf(hours.start), endMinute: minuteOf(hours.end) };
}

function minuteOf(clock: string): number {
  const match = CLOCK.exec(clock);
  if (match === null) {
    throw new RangeError(`Expected 'HH:MM' (24 h), got ${shown(clock)}; check quiet hours with checkQuietHours first`);
  }
  return Number(match[1]) * 60 + Number(match[2]);
}

/** A minute of the day as `'HH:MM'`. */
export function clockOf(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

/** Whether a minute of the local day is inside the window, which wraps midnight when it starts after it ends. */
function inWindow(minute: number, window: QuietWindow): boolean {
  return window.startMinute < window.endMinute
    ? minute >= window.startMinute && minute < window.endMinute
    : minute >= window.startMinute || minute < window.endMinute;
}

/** The wall-clock minute of the day of a local time written as if it were UTC. */
function minuteOfDay(local: number): number {
  return Math.floor(modulo(local, DAY) / MINUTE);
}

/**
 * Whether the instant `at` (ms since the epoch) is quiet in `timeZone`: its wall-clock time there
 * is inside the window (`start` included, `end` not).
 *
 * @example
 * ```ts
 * isQuietAt(Date.parse('2026-06-01T02:00Z'), quietWindow({ start: '21:00', end: '08:00' }), 'America/New_York') // true
 * ```
 */
export function isQuietAt(at: number, window: QuietWindow, timeZone: string): boolean {
  return inWindow(minuteOfDay(at + offsetAt(timeZone, at)), window);
}

/**
 * Where the window that `from` is in (in `timeZone`) ends, or where the clock first moves before
 * that: within one offset the wall clock runs on, so the window ends when it shows `end`; a change
 * of offset moves the clock, and from there the window is read again.
 */
function windowEnd(from: number, window: QuietWindow, timeZone: string): number {
  const offset = offsetAt(timeZone, from);
  const local = from + offset;
  let endLocal = local - modulo(local, DAY) + window.endMinute * MINUTE;
  if (endLocal <= local) endLocal += DAY;
  const end = endLocal - offset;
  return offsetChange(timeZone, from, offset, end) ?? end;
}

/**
 * The earliest instant at or after `at` (ms since the epoch) that is outside the quiet window in
 * every one of `timeZones`: `at` itself when it already is, and undefined when no such instant comes
 * within 48 hours of `at` (the zones lie further apart than the hours the window leaves free).
 *
 * Exact across daylight-saving changes: a window that ends inside a skipped hour ends when the
 * clock jumps past it; one that ends inside a repeated hour ends at the first time the clock shows
 * its end (after which the clock goes back, and the part of the repeated hour before the end is
 * quiet again). Throws a RangeError for
 * a zone the runtime does not know.
 *
 * @example
 * ```ts
 * const window = quietWindow({ start: '21:00', end: '08:00' })
 * quietUntil(Date.parse('2026-03-08T04:00Z'), window, ['America/New_York'])
 * // Date.parse('2026-03-08T12:00Z'): 08:00 EDT, the morning after the clocks went forward
 * ```
 */
export function quietUntil(at: number, window: QuietWindow, timeZones: readonly string[]): number | undefined {
  const limit = at + HORIZON;
  let until = at;
  // `until` only grows, and each move stays within a window it was in (to its end, or to a change
  // of the clock): every instant passed is quiet somewhere, so the first one quiet nowhere is the earliest.
  for (let moved = true; moved; ) {
    moved = false;
    for (const timeZone of timeZones) {
      if (!isQuietAt(until, window, timeZone)) continue;
      until = windowEnd(until, window, timeZone);
      if (until > limit) return undefined;
      moved = true;
    }
  }
  return until;
}
