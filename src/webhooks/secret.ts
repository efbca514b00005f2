import { type Issue, ValidationError } from '../errors.js';
import { fromBase64 } from './base64.js';

const PREFIX = 'whsec_';

/** What every refusal of a secret says: never the secret itself, nor a part of it. */
const SECRET_ISSUE: Issue = {
  path: 'secret',
  message: 'must be the endpoint’s secret: whsec_ followed by base64, e.g. whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
};

/**
 * The key bytes of a `whsec_` secret (the prefix is optional, as in the reference), or undefined
 * after pushing an issue that never quotes the secret. A non-string (an unset environment
 * variable's `undefined` included) is refused the same way.
 */
export function checkSecret(secret: unknown, issues: Issue[]): Uint8Array | undefined {
  const encoded = typeof secret === 'string' && secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  const key = typeof encoded === 'string' ? fromBase64(encoded) : undefined;
  if (key && key.length > 0) return key;
  issues.push(SECRET_ISSUE);
  return undefined;
}

/** `checkSecret`, for a secret alone: anything but a usable secret is a ValidationError. */
export function secretKey(secret: string): Uint8Array {
  const issues: Issue[] = [];
  const key = checkSecret(secret, issues);
  if (!key) throw new ValidationError('Invalid webhook secret', issues);
  return key;
}
