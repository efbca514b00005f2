/**
 * A string enum that stays open: known values autocomplete, and a value a newer service sends
 * (say a future `delivery_status`) still type-checks and parses instead of throwing.
 */
export type KnownOrString<Known extends string> = Known | (string & {});
