import type { Dispatcher } from 'undici';
import type { ProxyConfig } from '../../internal/requests/proxy.js';
import type { Transport } from './transport.js';
import { UndiciTransport } from './undici-transport.js';

/**
 * The transport a client uses when it is given no `fetch`: undici's dispatcher (which falls back
 * to the runtime's fetch where the imported undici cannot dispatch, as on Bun). The Cloudflare
 * Workers build (the `workerd` export condition) replaces this module with
 * default-transport.workerd.ts, so that undici never enters a Worker's bundle.
 */
export function createDefaultTransport(dispatcher: Dispatcher | undefined, proxy: ProxyConfig | undefined): Transport {
  return new UndiciTransport(dispatcher, proxy);
}
