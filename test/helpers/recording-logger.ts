/**
 * A logger for the SDK's `logger` option that keeps each warning and error as one line of text
 * (message and metadata), so a test can look for what must never be logged, a secret say.
 */
export function recordingLogger() {
  const lines: string[] = [];
  const record = (message: string, meta?: unknown) => void lines.push(message + JSON.stringify(meta));
  return { lines, logger: { debug: () => undefined, info: () => undefined, warn: record, error: record } };
}
