/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * A JSON object whose fields the specification does not show (tenant context, subscription,
 * usage, sender numbers, contact lookups). The SDK invents no fields: read what your service sends.
 */
export type JsonObject = { [key: string]: JsonValue };
