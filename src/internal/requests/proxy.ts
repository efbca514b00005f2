import type { Issue } from '../../errors.js';
import { describeValue } from '../values/describe-value.js';
import { isLoopback } from './environment.js';

/**
 * Where the undici transport sends requests, resolved once from the `proxy` option:
 * - `url`: every request goes through one proxy (undici's `ProxyAgent`);
 * - `env`: undici's `EnvHttpProxyAgent`, with the variables read when the client was constructed
 *   (so they are checked with the other options, and one client never changes route half-way).
 *   An empty string means "not set": undici then goes direct (or, for https, uses `httpProxy`).
 */
export type ProxyConfig =
  | { readonly kind: 'url'; readonly uri: string }
  | { readonly kind: 'env'; readonly httpProxy: string; readonly httpsProxy: string; readonly noProxy: string };

const EXAMPLE = "'http://proxy.internal:3128'";

/**
 * A proxy URL with its credentials replaced, for any text a person may read:
 * `http://user:pass@proxy:8080` → `http://***@proxy:8080/`. Never throws; a string that is not a
 * URL is not shown at all (it may be a mangled URL still holding a password).
 */
export function redactProxyUrl(uri: string): string {
  const url = URL.parse(uri);
  if (url === null) return '[unparsable proxy URL]';
  if (url.username === '' && url.password === '') return url.href;
  url.username = '';
  url.password = '';
  return url.href.replace('//', '//***@');
}

/**
 * Why `uri` cannot be a proxy URL, or undefined when it can. The value itself is never repeated:
 * it may hold credentials. Only `http:` and `https:` proxies are taken (undici would also try
 * `socks5:`, whose credentials and failures the SDK has no tests for), and only an origin:
 * undici refuses a proxy URL with a path only when the first request is made.
 */
function proxyUrlProblem(uri: string): string | undefined {
  const url = URL.parse(uri);
  if (url === null) return `is not a URL; write it with its scheme, e.g. ${EXAMPLE}`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must be an http:// or https:// URL (got a ${url.protocol} URL), e.g. ${EXAMPLE}`;
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    return `must be the proxy's origin only (scheme, optional user:password@, host and port), without a path, query or fragment, e.g. ${EXAMPLE}`;
  }
  return undefined;
}

/** The variable undici reads first: the lower-case name wins over the upper-case one. */
function envVar(env: NodeJS.ProcessEnv, name: string): { name: string; value: string } | undefined {
  for (const candidate of [name.toLowerCase(), name]) {
    const value = env[candidate];
    if (value !== undefined) return { name: candidate, value };
  }
  return undefined;
}

/**
 * Checks the `proxy` option and pushes an issue for each problem; returns what the transport needs.
 * `baseProtocol` is the base URL's scheme: plain http through a proxy on another host would hand
 * the API key to that host unencrypted, which needs `allowInsecureHttp` like an http base URL does.
 */
export function checkProxy(
  proxy: unknown,
  env: NodeJS.ProcessEnv,
  insecure: { baseProtocol: string; allowed: boolean },
  issues: Issue[],
): ProxyConfig | undefined {
  if (proxy === undefined) return undefined;
  if (proxy === 'env') {
    const read: Record<'HTTP_PROXY' | 'HTTPS_PROXY', string> = { HTTP_PROXY: '', HTTPS_PROXY: '' };
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY'] as const) {
      const found = envVar(env, name);
      // undici treats an empty variable as unset.
      if (found === undefined || found.value === '') continue;
      const problem = proxyUrlProblem(found.value);
      if (problem) issues.push({ path: 'proxy', message: `is 'env', and the ${found.name} variable ${problem}` });
      else read[name] = found.value;
    }
    // An http:// base URL goes through HTTP_PROXY as a readable request: the same rule as an
    // explicit proxy URL on another host (NO_PROXY may exempt the host, but the key must not
    // depend on a variable being right).
    const httpProxyHost = read.HTTP_PROXY ? new URL(read.HTTP_PROXY).hostname : undefined;
    if (insecure.baseProtocol === 'http:' && httpProxyHost && !isLoopback(httpProxyHost) && !insecure.allowed) {
      issues.push({
        path: 'proxy',
        message: `is 'env', HTTP_PROXY names another host (${httpProxyHost}) and the base URL is plain http://: the proxy would read the API key. Use an https:// base URL`,
        hint: 'or pass allowInsecureHttp: true for a network you trust',
      });
    }
    return {
      kind: 'env',
      httpProxy: read.HTTP_PROXY,
      httpsProxy: read.HTTPS_PROXY,
      noProxy: envVar(env, 'NO_PROXY')?.value ?? '',
    };
  }
  if (typeof proxy !== 'string') {
    issues.push({
      path: 'proxy',
      message: `must be 'env' or a proxy URL string such as ${EXAMPLE}, got ${typeof proxy === 'object' && proxy !== null ? 'an object (pass a URL as its .href)' : describeValue(proxy)}`,
    });
    return undefined;
  }
  const problem = proxyUrlProblem(proxy);
  if (problem) {
    issues.push({ path: 'proxy', message: `must be 'env' or a proxy URL: it ${problem}` });
    return undefined;
  }
  const { hostname } = new URL(proxy);
  if (insecure.baseProtocol === 'http:' && !isLoopback(hostname) && !insecure.allowed) {
    issues.push({
      path: 'proxy',
      message: `is on another host (${hostname}) and the base URL is plain http://: the proxy would read the API key. Use an https:// base URL (the key then travels inside TLS through the proxy)`,
      hint: 'or pass allowInsecureHttp: true for a network you trust',
    });
  }
  return { kind: 'url', uri: proxy };
}
