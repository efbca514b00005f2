import type { Scope } from '../../endpoints.js';
import {
  DEFAULT_TENANTS,
  KEY_ROLES,
  type KeyRole,
  SANDBOX_DEFAULTS,
  type SandboxOptions,
  type SenderNumberSeed,
  scopesOf,
  snakeRole,
} from './options.js';

/** A sender number of a tenant, as `GET /sender-numbers` lists it. */
export interface SenderNumber {
  readonly id: number;
  readonly phone: string;
  readonly displayName: string;
  readonly status: string;
}

/** An API key of a tenant. */
export interface ApiKey {
  readonly id: number;
  readonly role: KeyRole;
  readonly key: string;
  readonly scopes: readonly Scope[];
  /** ms since the epoch; null means it never expires. */
  readonly expiresAt: number | null;
  readonly revoked: boolean;
}

/** A tenant's fixed configuration; its changing data (its logs) lives in `SandboxState` (state.ts). */
export interface Tenant {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly keys: readonly ApiKey[];
  readonly senderNumbers: readonly SenderNumber[];
  readonly createdAt: number;
  messageLimit: number;
  subscriptionStatus: string;
}

/** One day in ms. */
export const DAY = 86_400_000;

/** Builds the tenants from the options: deterministic ids and key strings, so docs can show them. */
export function buildTenants(options: SandboxOptions, now: number): Tenant[] {
  const seeds = options.tenants ?? DEFAULT_TENANTS;
  const prefix = options.keyPrefix ?? SANDBOX_DEFAULTS.keyPrefix;
  const slugs = new Set<string>();
  let numberId = 0;
  let keyId = 0;
  return seeds.map((seed, index) => {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(seed.slug) || slugs.has(seed.slug)) {
      throw new Error(
        `Sandbox tenant slug '${seed.slug}' must be unique, lower-case letters, digits and dashes (it is a URL segment).`,
      );
    }
    slugs.add(seed.slug);
    const keys = KEY_ROLES.map(
      (role): ApiKey => ({
        id: ++keyId,
        role,
        key: seed.keys?.[role] ?? `${prefix}_${seed.slug}_${snakeRole(role)}`,
        scopes: scopesOf(role),
        expiresAt: role === 'expired' ? now - DAY : null,
        revoked: role === 'revoked',
      }),
    );
    const senderNumbers = (seed.senderNumbers ?? defaultNumbers(index)).map(
      (number): SenderNumber => ({
        id: ++numberId,
        phone: number.phone,
        displayName: number.displayName ?? number.phone,
        status: number.status ?? 'active',
      }),
    );
    return {
      id: index + 1,
      slug: seed.slug,
      name: seed.name ?? seed.slug.charAt(0).toUpperCase() + seed.slug.slice(1),
      keys,
      senderNumbers,
      createdAt: now - 90 * DAY,
      messageLimit: seed.messageLimit ?? SANDBOX_DEFAULTS.messageLimit,
      subscriptionStatus: seed.subscriptionStatus ?? 'active',
    };
  });
}

/** Sender numbers of a tenant seed that gave none: two active, one pending. */
function defaultNumbers(index: number): SenderNumberSeed[] {
  const base = `+1555${String(index + 1).padStart(4, '0')}`;
  return [
    { phone: `${base}001` },
    { phone: `${base}002` },
    { phone: `${base}003`, status: 'pending_account_verification' },
  ];
}

/** The tenant's key strings by role. */
export function keysByRole(tenant: Tenant): Record<KeyRole, string> {
  return Object.fromEntries(tenant.keys.map((k) => [k.role, k.key])) as Record<KeyRole, string>;
}
