/**
 * The types of quiet hours. Like every file of types, this imports no implementation module, so the
 * entry's public types can name them.
 */
import type { QuietHoursOptions } from '../types.js';

/** Quiet hours as the queue and `queue.send` take them (the entry's public `QuietHoursOptions`). */
export type QuietHours = QuietHoursOptions;

/** A checked window as minutes of the day (`'21:00'` is `1260`): the form the scheduling arithmetic takes. */
export interface QuietWindow {
  /** The first quiet minute of the local day, from `0` to `1439`. */
  readonly startMinute: number;
  /** The first minute of the local day after the window; never equal to `startMinute`. */
  readonly endMinute: number;
}
