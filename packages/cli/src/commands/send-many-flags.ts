/** send-many's flags as commander gives them, and the settings a run takes from them, each one checked. */

import { parseCount, parseDuration } from '../shell/duration.js';
import { UsageError } from '../shell/exit-codes.js';
import { quote } from '../shell/secrets.js';

export interface SendManyFlags {
  readonly file: string;
  readonly from?: string;
  readonly concurrency: string;
  readonly rate?: string;
  /** Follow the sent messages to delivered (true, 'delivered') or read. */
  readonly track?: string | boolean;
  readonly trackTimeout: string;
  /** Send the file even though an interrupted run of it left its journal (its sent rows go again). */
  readonly force?: boolean;
}

/** What a send-many run takes from its flags. */
export interface SendManySettings {
  /** With `--track`: the status the sent messages are followed to. */
  readonly until: 'delivered' | 'read' | undefined;
  /** Sends in flight at once. */
  readonly concurrency: number;
  /** With `--rate`: requests per second at most. */
  readonly rate: number | undefined;
  /** With `--track`: how long each sent message may take to get there, in milliseconds (0 without). */
  readonly trackTimeout: number;
}

/**
 * The flags checked, in the order they are read: a bad one is a usage error (exit code 2), found
 * before the file is opened.
 *
 * @example
 * ```ts
 * sendManySettings({ file: 'a.csv', concurrency: '4', rate: '120/min', trackTimeout: '10m' }) // rate: 2
 * ```
 */
export function sendManySettings(flags: SendManyFlags): SendManySettings {
  const until = trackedStatus(flags.track);
  const concurrency = parseCount(flags.concurrency, '--concurrency');
  const rate = flags.rate === undefined ? undefined : parseRate(flags.rate);
  // Checked with or without --track: a mistyped value is refused, not silently unused.
  const trackTimeout = parseDuration(flags.trackTimeout, '--track-timeout');
  return { until, concurrency, rate, trackTimeout: until === undefined ? 0 : trackTimeout };
}

/** `--track` and `--track delivered` follow to delivered, `--track read` to read; anything else is refused. */
function trackedStatus(track: string | boolean | undefined): 'delivered' | 'read' | undefined {
  if (track === undefined || track === false) return undefined;
  if (track === true || track === 'delivered') return 'delivered';
  if (track === 'read') return 'read';
  throw new UsageError(`--track takes delivered or read, got ${quote(track)}`);
}

/** `50/s`, `50` (per second), or `120/min`. */
function parseRate(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(?:\/(s|sec|m|min))?$/.exec(text.trim());
  const n = Number(match?.[1]);
  if (!match || !(n > 0)) throw new UsageError(`--rate must look like 50/s or 120/min, got ${quote(text)}`);
  return match[2]?.startsWith('m') ? n / 60 : n;
}
