/**
 * A time zone's offset from UTC at an instant, read through `Intl.DateTimeFormat` (the runtime's
 * own time zone data, so nothing to ship or update), with one formatter per zone.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws a RangeError for a zone the runtime does not know; only known zones are cached. */
function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      calendar: 'gregory',
      numberingSystem: 'latn',
      // h23, not hour12: false, which some ICU versions print as '24' at midnight.
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `Intl.DateTimeFormat` accepts `timeZone` (`'America/New_York'`, `'UTC'`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Offsets change only at whole seconds in the time zone data, and Intl shows whole seconds. */
const TICK = 1000;
const HOUR = 3_600_000;
/** Bounds the memory of `steady`: emptied when it holds this many hours. */
const STEADY_LIMIT = 4096;
/** Per zone and hour since the epoch, the offset when it holds the whole hour, else NaN. */
const steady = new Map<string, number>();

/**
 * The ms to add to `at` (ms since the epoch) to get the wall-clock time in `timeZone` at that
 * instant, written as if it were UTC. Throws a RangeError for an unknown zone or an invalid instant.
 */
export function offsetAt(timeZone: string, at: number): number {
  // Messages due about now ask about the same few hours of the same zones: an hour whose two ends
  // have one offset has it throughout (no zone changes its offset and back within an hour).
  const hour = Math.floor(at / HOUR);
  const key = `${hour} ${timeZone}`;
  let offset = steady.get(key);
  if (offset === undefined) {
    const first = readOffset(timeZone, hour * HOUR);
    offset = first === readOffset(timeZone, hour * HOUR + HOUR - 1) ? first : Number.NaN;
    if (steady.size >= STEADY_LIMIT) steady.clear();
    steady.set(key, offset);
  }
  return Number.isNaN(offset) ? readOffset(timeZone, at) : offset;
}

/** The offset as Intl tells it, read afresh. */
function readOffset(timeZone: string, at: number): number {
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of formatterOf(timeZone).formatToParts(at)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
    else if (part.type === 'second') second = Number(part.value);
  }
  // Intl shows whole seconds, so the offset is taken against the instant's whole second.
  return Date.UTC(year, month - 1, day, hour, minute, second) - (at - modulo(at, TICK));
}

/**
 * The first instant in `(from, to]` at which `timeZone`'s offset is no longer `offset` (its offset
 * at `from`), or undefined when it is the same at `to`. Found by halving, on the assumption (true of
 * the time zone data) that a zone does not change its offset and change it back within that span.
 */
export function offsetChange(timeZone: string, from: number, offset: number, to: number): number | undefined {
  if (offsetAt(timeZone, to) === offset) return undefined;
  let before = from;
  let after = to;
  while (after - before > TICK) {
    const middle = before + Math.floor((after - before) / 2);
    if (offsetAt(timeZone, middle) === offset) before = middle;
    else after = middle;
  }
  // The change is a whole second in (before, after], a span of one second at most: there is one.
  return after - modulo(after, TICK);
}

/** `value` modulo `divisor`, never negative (`%` keeps the sign of an instant before the epoch). */
export function modulo(value: number, divisor: number): number {
  return ((value % divisor) + divisor) % divisor;
}
