/**
 * How a refusal quotes what a person (or an agent) gave: whole when short, shortened when long, so
 * that a 5,000-character value does not flood a terminal or a log, and with the characters that
 * could forge lines of the message (line breaks, escape sequences, bidi overrides) made visible.
 * The one way both bins quote input: the command line's refusals and the MCP server's.
 */
import { redactSecrets } from './redact.js';

/**
 * The longest input quoted whole, in characters (code points).
 * @default 64
 */
export const QUOTE_MAX = 64;

/** Kept of a long input: its start and its end, where a typo or a stray paste usually shows. */
const HEAD = 40;
const TAIL = 12;

/**
 * Controls (C0, DEL, C1), format characters (bidi marks, embeddings, overrides and isolates,
 * zero-width ones), line and paragraph separators, and lone surrogates.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/**
 * `text` quoted for a refusal: `'soon'`; a long one as its first 40 and last 12 characters with
 * its length (`'+1555…5555' (5,012 characters)`); control and bidi characters as `\u{...}` escapes.
 * Never cuts a character in two (it counts code points). `secrets` are redacted before the text is
 * shortened: a cut could otherwise keep part of a secret that the whole no longer shows as one.
 *
 * @example
 * ```ts
 * throw new UsageError(`--wait takes delivered or read, got ${quoteInput(flags.wait)}`)
 * ```
 */
export function quoteInput(text: string, max: number = QUOTE_MAX, secrets: readonly string[] = []): string {
  const { shown, length } = shortened(text, max, secrets);
  return length === undefined ? `'${shown}'` : `'${shown}' (${length} characters)`;
}

/**
 * `text` as {@link quoteInput} shows it, without its quotes, for a message that quotes it already
 * (`received "..."`): whole when short, else `start…end (5,012 characters)`.
 *
 * @example
 * ```ts
 * message.replaceAll(long, () => shortInput(long)) // 'received "+1555…5555 (5,012 characters)"'
 * ```
 */
export function shortInput(text: string, max: number = QUOTE_MAX, secrets: readonly string[] = []): string {
  const { shown, length } = shortened(text, max, secrets);
  return length === undefined ? shown : `${shown} (${length} characters)`;
}

/** `text` made visible, and when longer than `max` its start and end with its length (en-US digits). */
function shortened(
  text: string,
  max: number,
  secrets: readonly string[],
): { shown: string; length: string | undefined } {
  const chars = Array.from(secrets.length === 0 ? text : redactSecrets(text, secrets));
  if (chars.length <= max) return { shown: visible(chars), length: undefined };
  const head = chars.slice(0, Math.min(HEAD, max));
  const tail = chars.slice(chars.length - Math.min(TAIL, Math.max(0, max - HEAD)));
  return { shown: `${visible(head)}…${visible(tail)}`, length: chars.length.toLocaleString('en-US') };
}

/** The characters, each invisible or line-forging one as a visible escape (lone surrogates too). */
function visible(chars: readonly string[]): string {
  return chars
    .map((char) => {
      return INVISIBLE.test(char) ? `\\u{${(char.codePointAt(0) as number).toString(16)}}` : char;
    })
    .join('');
}
