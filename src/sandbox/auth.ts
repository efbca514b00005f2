import { errorResponse } from './laravel.js';
import type { ApiKey, Tenant } from './tenants.js';

/**
 * Spec section 5: `X-Api-Key` must name an active key of this tenant. A missing key is
 * `Unauthenticated.`; an unknown one (including another tenant's), an expired or a revoked
 * one is a 401 saying which, so a developer can tell them apart in the sandbox.
 */
export function authenticate(request: Request, tenant: Tenant, now: number): { key: ApiKey } | { response: Response } {
  const given = request.headers.get('x-api-key')?.trim();
  if (!given) return { response: errorResponse(401, 'Unauthenticated.') };
  const key = tenant.keys.find((k) => k.key === given);
  if (!key) return { response: errorResponse(401, 'Invalid API key.') };
  if (key.revoked) return { response: errorResponse(401, 'The API key has been revoked.') };
  if (key.expiresAt !== null && key.expiresAt <= now) {
    return { response: errorResponse(401, 'The API key has expired.') };
  }
  return { key };
}
