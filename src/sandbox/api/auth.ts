import { unauthenticated } from '../http/laravel.js';
import type { ApiKey, Tenant } from '../state/tenants.js';

/**
 * Spec section 5: `X-Api-Key` must name an active key of this tenant. Every failure (missing,
 * unknown, another tenant's, expired or revoked) is Laravel's AuthenticationException: a 401
 * saying `Unauthenticated.` and nothing more, as the real service answers.
 */
export function authenticate(request: Request, tenant: Tenant, now: number): { key: ApiKey } | { response: Response } {
  const given = request.headers.get('x-api-key')?.trim();
  const key = given ? tenant.keys.find((k) => k.key === given) : undefined;
  if (!key || key.revoked || (key.expiresAt !== null && key.expiresAt <= now)) {
    return { response: unauthenticated() };
  }
  return { key };
}
