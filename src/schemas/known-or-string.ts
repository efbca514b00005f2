import type { KnownOrString } from '../types/known-or-string.js';
import * as z from './zod.js';

/** The runtime side of `KnownOrString`: any string, typed as the known values plus `string`. */
export function knownOrString<const Known extends string>(_known: readonly Known[]) {
  return z.string() as unknown as z.ZodMiniType<KnownOrString<Known>, string>;
}
