/**
 * Text that no datastore, nor the API, can hold as given: a NUL character (PostgreSQL's text and
 * jsonb refuse it, and refusing aborts the caller's transaction) or a lone UTF-16 surrogate (UTF-8
 * cannot encode it: it is refused, or silently becomes U+FFFD). Send parameters with either are
 * refused before anything is sent or stored, the same on every path (see send.ts).
 */

/** `String.prototype.isWellFormed` (Node >= 20), which TypeScript's ES2023 lib does not declare. */
interface WellFormedString {
  isWellFormed(): boolean;
}

/** True when `text` can be sent and stored exactly as given: no NUL, no lone surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\0') && (text as string & WellFormedString).isWellFormed();
}

/**
 * Why `text` cannot be sent or stored as given, naming its first bad character by code point and
 * index (never quoting the text: it may be long or private); undefined when it can.
 * @example unstorableTextProblem('a\0b') // 'contains a NUL character (U+0000) at index 1: ...'
 */
export function unstorableTextProblem(text: string): string | undefined {
  if (isStorableText(text)) return undefined;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0) {
      return `contains a NUL character (U+0000) at index ${i}: no datastore or the API can hold it; remove it`;
    }
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++; // a surrogate pair: one code point, such as an emoji
      continue;
    }
    const code = unit.toString(16).toUpperCase();
    return (
      `contains a lone UTF-16 surrogate (U+${code}) at index ${i}: it cannot be encoded as UTF-8; ` +
      "the string was probably cut in the middle of an emoji: cut text by code points, e.g. [...text].slice(0, n).join('')"
    );
  }
  return undefined;
}
