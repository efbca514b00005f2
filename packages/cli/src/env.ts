/**
 * The environment variables the command reads: the SDK's own names (its client reads the same
 * ones when no option is given), so one set of variables serves a program and the command.
 */
export const ENV = Object.freeze({
  baseUrl: 'TENANT_MESSAGING_BASE_URL',
  apiKey: 'TENANT_MESSAGING_API_KEY',
  logLevel: 'TENANT_MESSAGING_LOG',
});
