/**
 * What the `tenant-messaging` and `tenant-messaging-mcp` bins share, bundled into each.
 *
 * @example
 * ```ts
 * import { catchStopSignals, credentialsFrom, quoteInput, redactSecrets, UsageError } from 'tenant-messaging-bin-kit'
 * ```
 */
export { type Advice, adviceByCode, type BinTerms } from './advice.js';
export { paint, type StyleFormat, wantsColour } from './colour.js';
export { type CredentialFlags, type Credentials, credentialsFrom, ENV } from './credentials.js';
export { plainIssues, plainMessage } from './error-words.js';
export { oldNodeWarning, REQUIRED_NODE } from './node-floor.js';
export { QUOTE_MAX, quoteInput, shortInput } from './quote-input.js';
export { REDACTED, redactDeep, redactSecrets, secretsInEnv } from './redact.js';
export { redactingLogger } from './redacting-logger.js';
export { catchStopSignals, STOP_SIGNALS, type StopSignal, type StopSignals, signalLabel } from './stop-signals.js';
export { UsageError } from './usage-error.js';
