import { type ProxyConfig, redactProxyUrl } from '../../internal/requests/proxy.js';

/**
 * undici's answer when the proxy refused a CONNECT (any status but 200): a `RequestAbortedError`,
 * a code shared with other aborts, so its message tells it apart (undici 8, proxy-agent.js).
 */
const TUNNEL_REFUSED = /^Proxy response \(\d+\) !== 200 when HTTP Tunneling$/;

/** The code of a refused CONNECT; internal/requests/network-error.ts counts it as "never connected". */
const PROXY_TUNNEL_REFUSED = 'TM_PROXY_TUNNEL_REFUSED';

/**
 * A failed exchange that went through a proxy. Its message says which proxy (credentials
 * redacted), so "connection refused" is not read as the API refusing; `code` is the original's,
 * and the original is the `cause`, so the failure is classified (and retried) as before. One
 * exception: a refused CONNECT gets `PROXY_TUNNEL_REFUSED`, because the request is written only
 * into an open tunnel, so none of it left (a send is then safe to retry, not "outcome unknown").
 */
export class ProxiedExchangeError extends Error {
  readonly code: string | undefined;

  constructor(error: unknown, route: string) {
    const message = error instanceof Error ? error.message : 'the exchange failed';
    super(`${message} (through ${route})`, { cause: error });
    const code = (error as { code?: unknown } | null)?.code;
    this.code = TUNNEL_REFUSED.test(message) ? PROXY_TUNNEL_REFUSED : typeof code === 'string' ? code : undefined;
  }
}

/**
 * How a request to `url` was routed, for an error message; undefined when it went direct. With
 * `'env'`, the variable the request's scheme uses (as undici picks it); `NO_PROXY` is not
 * matched again here, so the message hedges.
 */
export function proxyRoute(proxy: ProxyConfig, url: string): string | undefined {
  if (proxy.kind === 'url') return `the proxy ${redactProxyUrl(proxy.uri)}`;
  const uri = url.startsWith('https:') ? proxy.httpsProxy || proxy.httpProxy : proxy.httpProxy;
  if (uri === '') return undefined;
  const noProxy = proxy.noProxy === '' ? '' : ', unless NO_PROXY names this host';
  return `the proxy ${redactProxyUrl(uri)} from the environment${noProxy}`;
}
