import { ValidationError, type ValidationErrorOptions } from '../../errors.js';

type ValidationCode = NonNullable<ValidationErrorOptions['code']>;

import { describeValue } from './describe-value.js';

/**
 * The one guard for an argument that must be an object of named fields (client options, per-call
 * options, send and lookup parameters, poll options). Returns a copy of its own enumerable string
 * keys, made once:
 * - every later check and every request reads the copy, so a getter that changes between reads
 *   cannot put something unchecked on the wire;
 * - a caller's Proxy trap or getter that throws becomes a `ValidationError` whose `cause` is the
 *   thrown error, instead of an untyped error from deep inside the SDK;
 * - an own `__proto__` key stays a plain data field and never changes the copy's prototype.
 *
 * `what` starts the error message (`Invalid send parameters`); `example` shows the expected shape;
 * `code` says whether they are a constructor's options or a call's arguments.
 */
export function readFields(
  value: unknown,
  what: string,
  example: string,
  code: ValidationCode = 'validation.params',
): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError(
      what,
      [{ path: '', message: `must be an object such as ${example}, got ${describeValue(value)}` }],
      { code },
    );
  }
  try {
    // Spread reads each own enumerable field once (getters included) and defines an own
    // `__proto__` key as a plain data field, as the copy must; V8 clones it far faster than a loop.
    return { ...(value as Record<string, unknown>) };
  } catch (error) {
    throw new ValidationError(
      what,
      [{ path: '', message: `could not be read: reading it threw ${describeThrown(error)} (see cause)` }],
      { cause: error, code },
    );
  }
}

/** `readFields`, for an optional argument: `undefined` stays `undefined`. */
export function readOptionalFields(
  value: unknown,
  what: string,
  example: string,
  code: ValidationCode = 'validation.params',
): Record<string, unknown> | undefined {
  return value === undefined ? undefined : readFields(value, what, example, code);
}

/**
 * What a caller's trap or getter threw, for the message. Guarded: `instanceof` runs a thrown
 * Proxy's `getPrototypeOf` trap and `.name` may be a throwing getter, and either would escape
 * as an untyped error in place of the ValidationError.
 */
function describeThrown(error: unknown): string {
  try {
    return error instanceof Error ? error.name : describeValue(error);
  } catch {
    return describeValue(error);
  }
}
