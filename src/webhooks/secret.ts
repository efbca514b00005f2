import { ValidationError } from '../errors.js';
import { fromBase64 } from './base64.js';

const PREFIX = 'whsec_';

/**
 * The key bytes of a `whsec_` secret (the prefix is optional, as in the reference). Anything else
 * is a ValidationError that never quotes the secret.
 */
export function secretKey(secret: string): Uint8Array {
  const encoded = typeof secret === 'string' && secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  const key = typeof encoded === 'string' ? fromBase64(encoded) : undefined;
  if (!key || key.length === 0) {
    throw new ValidationError('Invalid webhook secret', [
      {
        path: 'secret',
        message:
          'must be the endpoint’s secret: whsec_ followed by base64, e.g. whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
    ]);
  }
  return key;
}
