/** What the quiet-hours files share: fixed instants, windows, and `quietUntil` read as a time. */
import { quietUntil, quietWindow } from '../../../src/bullmq/schedule/quiet-hours.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const at = (iso: string) => Date.parse(iso);
export const window = (start: string, end: string) => quietWindow({ start, end });
/** `quietUntil` for one zone, as an ISO string, so that a failure reads as a time. */
export const until = (from: string, start: string, end: string, zone: string) => {
  const result = quietUntil(at(from), window(start, end), [zone]);
  return result === undefined ? undefined : new Date(result).toISOString();
};
