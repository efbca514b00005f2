/**
 * The text rules the service applies to a send's string fields, before any other rule of the
 * field: no NUL character (its PostgreSQL text columns refuse one) and nothing that is not UTF-8
 * (a form field's raw bytes that do not decode, or a lone UTF-16 surrogate). Either is a 422 on
 * that field. A JSON body with a lone surrogate escape never gets this far: PHP's json_decode
 * refuses the whole document (see request-body.ts).
 */
import { rules } from './laravel.js';

/**
 * A form field whose bytes are not UTF-8. `lossy` is their decoding with U+FFFD in place of
 * each bad sequence, for messages only: the value itself is refused.
 */
export class MalformedText {
  constructor(readonly lossy: string) {}
}

/** A lone UTF-16 surrogate: a high half not followed by a low one, or a low half not after a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The 422 message for `value` in `field` when a text rule refuses it, else undefined. */
export function textProblem(field: string, value: unknown): string | undefined {
  if (value instanceof MalformedText) return rules.utf8(field);
  if (typeof value !== 'string') return undefined;
  if (value.includes('\0')) return rules.noNul(field);
  if (LONE_SURROGATE.test(value)) return rules.utf8(field);
  return undefined;
}

/** True when `text` holds no lone surrogate, i.e. it can be written as UTF-8. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}
