/**
 * Hosts where plain http never leaves the machine: `localhost` and the loopback addresses.
 * Names under `.localhost` are not among them: the connection resolves them through the
 * ordinary resolver, which may answer any address, so they need https like any other host.
 */
export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** True in a browser page or worker: where an API key would be readable by anyone. */
export function inBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown };
  return (typeof g.window === 'object' && typeof g.document === 'object') || typeof g.importScripts === 'function';
}
