/**
 * tenant-messaging/sandbox: a local fake of the Tenant Messaging API that follows its
 * specification, for demos, examples and tests. It does not import msw (see `tenant-messaging/testing`).
 *
 * @example
 * ```ts
 * import { startSandbox } from 'tenant-messaging/sandbox'
 * const sandbox = await startSandbox()
 * console.log(sandbox.tenants.acme.baseUrl, sandbox.tenants.acme.keys.full)
 * ```
 *
 * @packageDocumentation
 */

export type { ActiveFault, FaultKind, FaultRoute, FaultRule } from './faults.js';
export { FaultController, MEDIA_ROUTE } from './faults.js';
export type { LaneLimits } from './lane-limits.js';
export {
  DEFAULT_TENANTS,
  type DefaultTenantSlug,
  type DeliveryDelays,
  KEY_ROLES,
  type KeyRole,
  SANDBOX_DEFAULTS,
  type SandboxOptions,
  type SenderNumberSeed,
  type TenantSeed,
} from './options.js';
export { SANDBOX_PHONES } from './phones.js';
export type { RateLimit } from './rate-limit.js';
export { RequestLog, type RequestLogFilter } from './request-log.js';
export { createSandbox, type Sandbox, type SandboxTenant } from './sandbox.js';
export { type RunningSandbox, type SandboxCloseOptions, type StartSandboxOptions, startSandbox } from './server.js';
export { type SandboxCounters, SandboxDriftError, type UploadRecord } from './state.js';
