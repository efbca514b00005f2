/**
 * The check that libphonenumber-js, an optional peer dependency, is installed, made where an
 * option that needs it is given (a queue's or a send's `'recipient'` quiet hours, a worker's
 * per-recipient lanes): the user then learns what to install when the queue or the worker is
 * made, not when the first job runs. Only resolved here (cheap, synchronous); it is loaded on
 * first use (internal/phones/phone.ts).
 */

import { resolvePeer } from '../../seam/peers.js';
import { PHONE_MODULE, phonePeerMissing } from '../../seam/phones.js';

let installed = false;

/**
 * Throws `phonePeerMissing(feature)` (a MessagingError naming the package and its install
 * command) unless libphonenumber-js can be loaded from this package. `resolve` is injectable for
 * tests.
 *
 * @example requirePhonePeer("quietHours: { timeZone: 'recipient' }")
 */
export function requirePhonePeer(feature: string, resolve: (name: string) => unknown = resolvePeer): void {
  if (installed && resolve === resolvePeer) return;
  try {
    resolve(PHONE_MODULE);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw phonePeerMissing(feature, error);
  }
  if (resolve === resolvePeer) installed = true;
}
