import { ValidationError } from 'tenant-messaging';
import { expect } from 'vitest';

/** Runs `make`, which must throw a `ValidationError` (construction-time option checks); returns it. */
export function configError(make: () => unknown): ValidationError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError');
}
