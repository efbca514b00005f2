/**
 * How the sandbox treats recipient phones. Every well-formed phone is a known, reachable
 * recipient except these, chosen by their last digits so examples can pick one on purpose:
 *
 * | Phone ends in | Behaviour |
 * |---|---|
 * | `0000` | unreachable: lookup says `reachable: false`, a send is refused with a 422 |
 * | `8` | reachable, but never confirmed delivered: stays `sent` |
 * | `9` | delivered, but never read: stays `delivered` |
 * | anything else | `sent` -> `delivered` -> `read` on the configured delays |
 */
export const SANDBOX_PHONES = Object.freeze({
  /** A recipient that reads its messages. */
  reads: '+15557654321',
  /** A recipient that never reads (ends in 9). */
  neverReads: '+15557654329',
  /** A recipient whose delivery is never confirmed (ends in 8). */
  neverDelivered: '+15557654328',
  /** A recipient that cannot receive messages (ends in 0000). */
  unreachable: '+15557650000',
});

/** Phones as Laravel's `regex` rule would take them: an optional `+` and 6 to 15 digits. */
const PHONE = /^\+?[0-9]{6,15}$/;

/** True when `phone` has the E.164-like shape the sandbox accepts. */
export function isPhone(phone: string): boolean {
  return PHONE.test(phone);
}

/** True when the recipient can receive messages. */
export function isReachable(phone: string): boolean {
  return !phone.endsWith('0000');
}

/** How far a recipient's app ever takes a message. */
export function furthestStatus(phone: string): 'sent' | 'delivered' | 'read' {
  if (phone.endsWith('8')) return 'sent';
  if (phone.endsWith('9')) return 'delivered';
  return 'read';
}

/**
 * A stable recipient user id for a phone, so the same phone always maps to the same user
 * (and a conversation with the same sender number is reused).
 */
export function recipientUserId(phone: string): number {
  let hash = 0;
  for (const char of phone) hash = (hash * 31 + char.charCodeAt(0)) % 900_000;
  return 100_000 + hash;
}

/**
 * A phone as the lanes and the request log key it: `+` and its digits, so `15551230001`,
 * `+15551230001` and `+1 555 123 0001` are one number.
 */
export function phoneKey(phone: string): string {
  return `+${phone.replace(/\D+/g, '')}`;
}
