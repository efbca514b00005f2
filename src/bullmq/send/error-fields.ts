import { APIConnectionError, APIError } from '../../index.js';
import type { UpdateError } from '../types.js';

/** Failures worth another poll later. */
export function transient(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  return error instanceof APIError && (error.status === 408 || error.status >= 500);
}

/** A typed error as plain data for Redis and updates(): name, message, HTTP status, 422 field errors. */
export function errorFields(error: unknown): UpdateError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const { status, errors } = error as { status?: unknown; errors?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(typeof status === 'number' ? { status } : {}),
    ...(errors && typeof errors === 'object' ? { errors: errors as UpdateError['errors'] & object } : {}),
  };
}
