/**
 * `--allow-recipients`: the phones `prepare_send` may prepare a message to. A comma-separated list
 * of phones, each may end or contain `*` for any digits (`+1555*,+447911123456`). Phones are
 * compared without the separators people write (spaces, dashes, dots, parentheses), so
 * `+1 (555) 010-2030` is `+15550102030`.
 */
import { quoteInput, UsageError } from 'tenant-messaging-bin-kit';

/** The checked list: `allows(phone)` and the patterns as the operator wrote them, for messages. */
export interface RecipientList {
  /** True when `phone` matches one of the patterns. */
  allows(phone: string): boolean;
  /** The patterns as given, e.g. `['+1555*', '+447911123456']`. */
  readonly patterns: readonly string[];
}

/** What people put between the digits of a phone; never part of a comparison. */
const SEPARATORS = /[\s\-.()]/g;

/** A pattern after its separators are removed: an optional `+`, then digits and `*`, at least one of them. */
const PATTERN = /^\+?[0-9*]+$/;

/**
 * The list of `--allow-recipients <patterns>`; a UsageError names a pattern that is not a phone
 * with `*`, and an empty list.
 *
 * @example
 * ```ts
 * recipientList('+1555*,+447911123456').allows('+1 555 010 2030') // true
 * ```
 */
export function recipientList(text: string, secrets: readonly string[] = []): RecipientList {
  const patterns = text
    .split(',')
    .map((pattern) => pattern.trim())
    .filter(Boolean);
  if (patterns.length === 0) {
    throw new UsageError(
      `--allow-recipients takes a comma-separated list of phones, * for any digits, got ${quoteInput(text, undefined, secrets)}`,
    );
  }
  const matchers = patterns.map((pattern) => {
    const bare = pattern.replace(SEPARATORS, '');
    if (!PATTERN.test(bare)) {
      throw new UsageError(
        `--allow-recipients: ${quoteInput(pattern, undefined, secrets)} is not a phone pattern: use digits with an optional leading + and * for any digits (e.g. +1555*)`,
      );
    }
    // `*` stands for any digits (none included); a leading one for an optional `+` too.
    const source = bare.replace(/\+/, '\\+').replace(/\*/g, '[0-9]*');
    return new RegExp(`^${bare.startsWith('*') ? '\\+?' : ''}${source}$`);
  });
  return {
    patterns,
    allows: (phone) => {
      const bare = phone.replace(SEPARATORS, '');
      return matchers.some((matcher) => matcher.test(bare));
    },
  };
}
