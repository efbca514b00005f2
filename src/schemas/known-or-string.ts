import { z } from 'zod';

/**
 * A string enum that stays open: known values autocomplete, and a value a newer service sends
 * (say a future `delivery_status`) still type-checks and parses instead of throwing.
 */
export type KnownOrString<Known extends string> = Known | (string & {});

/** The runtime side of `KnownOrString`: any string, typed as the known values plus `string`. */
export function knownOrString<const Known extends string>(_known: readonly Known[]) {
  return z.string() as unknown as z.ZodType<KnownOrString<Known>, string>;
}
