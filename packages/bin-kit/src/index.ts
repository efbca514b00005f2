/**
 * What the `tenant-messaging` and `tenant-messaging-mcp` bins share, bundled into each.
 *
 * @example
 * ```ts
 * import { catchStopSignals, credentialsFrom, quoteInput, UsageError } from 'tenant-messaging-bin-kit'
 * ```
 */
export { sharedAdvice } from './advice.js';
export { type CredentialFlags, type Credentials, credentialsFrom, ENV } from './credentials.js';
export { QUOTE_MAX, quoteInput } from './quote-input.js';
export { REDACTED, redactSecrets, secretsInEnv } from './redact.js';
export { catchStopSignals, STOP_SIGNALS, type StopSignal, type StopSignals, signalLabel } from './stop-signals.js';
export { UsageError } from './usage-error.js';
