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

export type { ActiveFault, FaultKind, FaultRoute, FaultRule } from './faults/faults.js';
export { FaultController, MEDIA_ROUTE } from './faults/faults.js';
export { createSandbox, type Sandbox, type SandboxTenant } from './hosts/sandbox.js';
export {
  type RunningSandbox,
  type SandboxCloseOptions,
  type StartSandboxOptions,
  startSandbox,
} from './hosts/server.js';
export type { LaneLimits } from './limits/lane-limits.js';
export type { RateLimit } from './limits/rate-limit.js';
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
} from './state/options.js';
export { SANDBOX_PHONES } from './state/phones.js';
export { RequestLog, type RequestLogFilter } from './state/request-log.js';
export { type SandboxCounters, SandboxDriftError, type UploadRecord } from './state/state.js';
