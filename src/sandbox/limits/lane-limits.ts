import { type Issue, ValidationError } from '../../errors.js';
import { checkKnownKeys, type KnownKeys } from '../../internal/values/checks.js';
import { describeValue } from '../../internal/values/describe-value.js';
import { isPlainObject } from '../../internal/values/is-plain-object.js';
import { openWindow, refusalHeaders, type WindowCount, type WindowLimit } from './rate-limit.js';

/**
 * Limits of `POST /messages` per sender number and per (sender number, recipient) pair, on top of
 * the key-wide rate limit: a send over either is answered 429 as the key-wide throttle answers.
 * Only sends that pass validation count; reads never do.
 *
 * @example
 * ```ts
 * createSandbox({ laneLimits: { perSender: { perSecond: 80 }, perPair: { minInterval: 6_000 } } })
 * ```
 */
export interface LaneLimits {
  /**
   * At most `perSecond` sends per sender number in each fixed window of one second, as Laravel's
   * `Limit::perSecond(n)->by($sender)` counts: in whole Unix seconds, the window opened by the
   * sender's first send. A send by `sender_phone` and one by `sender_number_id` of the same number
   * count together.
   * @default undefined (no per-sender limit)
   * @example `{ perSender: { perSecond: 80 } }`
   */
  readonly perSender?:
    | {
        /**
         * Sends per second per sender number: an integer >= 1.
         * @default none: required
         * @example `80`
         */
        readonly perSecond: number;
      }
    | undefined;
  /**
   * One send per (sender number, recipient) pair in each window of `minInterval` ms, opened by the
   * pair's first send (Laravel's `Limit::perSecond(1, $decaySeconds)`, in ms): two accepted sends
   * of one pair are at least `minInterval` apart. The recipient is `+` and the digits of
   * `to_phone`, so `15551230001` and `+15551230001` are one.
   * @default undefined (no per-pair limit)
   * @example `{ perPair: { minInterval: 6_000 } }`
   */
  readonly perPair?:
    | {
        /**
         * Ms from a pair's accepted send until its next send is accepted: an integer >= 1.
         * @default none: required
         * @example `6_000`
         */
        readonly minInterval: number;
      }
    | undefined;
}

const KNOWN: KnownKeys<LaneLimits> = { perSender: true, perPair: true };
const ACCEPTED =
  'pass { perSender?: { perSecond: n }, perPair?: { minInterval: ms } } with integers >= 1, or null to turn the lanes off';

/** The windows of the lanes that are on; a bad value is a ValidationError saying what is accepted. */
function laneWindows(limits: LaneLimits | null): { sender: WindowLimit | null; pair: WindowLimit | null } {
  if (limits === null) return { sender: null, pair: null };
  const issues: Issue[] = [];
  let sender: WindowLimit | null = null;
  let pair: WindowLimit | null = null;
  if (!isPlainObject(limits)) {
    issues.push({ path: 'laneLimits', message: `must be an object or null, got ${describeValue(limits)}` });
  } else {
    const unknown: Issue[] = [];
    checkKnownKeys(limits, KNOWN, ' of laneLimits', unknown);
    issues.push(...unknown.map((issue) => ({ ...issue, path: `laneLimits.${issue.path}` })));
    const perSecond = laneValue(limits.perSender, 'perSender', 'perSecond', issues);
    if (perSecond !== undefined) sender = { max: perSecond, ms: 1000, aligned: true };
    const minInterval = laneValue(limits.perPair, 'perPair', 'minInterval', issues);
    if (minInterval !== undefined) pair = { max: 1, ms: minInterval, aligned: false };
  }
  if (issues.length > 0)
    throw new ValidationError(`Invalid sandbox lane limits (${ACCEPTED})`, issues, { code: 'validation.options' });
  return { sender, pair };
}

/** The one integer of a lane (`{ perSecond: n }`), undefined when the lane is not given or bad. */
function laneValue(lane: unknown, name: string, field: string, issues: Issue[]): number | undefined {
  if (lane === undefined) return undefined;
  const path = `laneLimits.${name}`;
  if (!isPlainObject(lane)) {
    issues.push({ path, message: `must be { ${field}: n } or absent, got ${describeValue(lane)}` });
    return undefined;
  }
  const unknown: Issue[] = [];
  checkKnownKeys(lane, { [field]: true }, ` of laneLimits.${name}`, unknown);
  issues.push(...unknown.map((issue) => ({ ...issue, path: `${path}.${issue.path}` })));
  const value = lane[field];
  if (!(Number.isSafeInteger(value) && (value as number) >= 1)) {
    issues.push({ path: `${path}.${field}`, message: `must be an integer >= 1, got ${describeValue(value)}` });
    return undefined;
  }
  return unknown.length > 0 ? undefined : (value as number);
}

/** Windows kept before the first sweep of ended ones. */
const SWEEP_MIN = 1024;

/**
 * The lanes of `POST /messages`: a fixed window per sender number (whole seconds, as the key-wide
 * `RateLimiter`) and one per (sender number, recipient) pair (ms, opened by the pair's send).
 *
 * A send is counted in every lane that is on, or in none: one refused by its pair's lane does not
 * use up its sender's (a Laravel named limiter returning both `Limit`s would have counted it in
 * the first), so a refusal costs a sender's other recipients nothing. When both lanes are full,
 * the refusal is the one whose window ends last: its `Retry-After` frees both.
 *
 * Memory follows the senders and pairs in use: ended windows are swept once the maps have doubled.
 */
export class LaneLimiter {
  #sender: WindowLimit | null = null;
  #pair: WindowLimit | null = null;
  readonly #senders = new Map<string, WindowCount>();
  readonly #pairs = new Map<string, WindowCount>();
  #sweepAt = SWEEP_MIN;

  constructor(limits: LaneLimits | null) {
    this.set(limits);
  }

  /** Changes the lanes (null: off) and forgets every window. */
  set(limits: LaneLimits | null): void {
    ({ sender: this.#sender, pair: this.#pair } = laneWindows(limits));
    this.reset();
  }

  /** Forgets every window. */
  reset(): void {
    this.#senders.clear();
    this.#pairs.clear();
    this.#sweepAt = SWEEP_MIN;
  }

  /**
   * Counts one send of sender number `senderId` to `recipient` (a `phoneKey`) at `now`: undefined
   * when every lane lets it through, else the headers of the 429 (nothing is counted then).
   */
  admit(senderId: number, recipient: string, now: number): Record<string, string> | undefined {
    const lanes: { limit: WindowLimit; windows: Map<string, WindowCount>; key: string }[] = [];
    if (this.#sender) lanes.push({ limit: this.#sender, windows: this.#senders, key: String(senderId) });
    if (this.#pair) lanes.push({ limit: this.#pair, windows: this.#pairs, key: `${senderId} ${recipient}` });
    let refusal: { limit: WindowLimit; window: WindowCount } | undefined;
    for (const { limit, windows, key } of lanes) {
      // Looked at, not opened: a window is opened by a send it counts (Laravel's `hit`), never by
      // a refused one, so a pair's next window starts at its last accepted send.
      const window = windows.get(key);
      if (!window || now >= window.end || window.hits < limit.max) continue;
      if (!refusal || window.end > refusal.window.end) refusal = { limit, window };
    }
    if (refusal) return refusalHeaders(refusal.limit, refusal.window, now);
    for (const { limit, windows, key } of lanes) openWindow(windows, key, limit, now).hits++;
    if (this.#senders.size + this.#pairs.size >= this.#sweepAt) this.#sweep(now);
    return undefined;
  }

  /** Drops the windows that have ended: a new send opens a new one anyway. */
  #sweep(now: number): void {
    for (const windows of [this.#senders, this.#pairs]) {
      for (const [key, window] of windows) if (now >= window.end) windows.delete(key);
    }
    this.#sweepAt = Math.max(SWEEP_MIN, 2 * (this.#senders.size + this.#pairs.size));
  }
}
