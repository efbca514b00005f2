import type { Dispatcher } from 'undici';
import { ValidationError } from '../../errors.js';
import type { ProxyConfig } from '../../internal/requests/proxy.js';
import { FetchTransport } from './fetch-transport.js';
import type { Transport } from './transport.js';

/**
 * The default transport in the Cloudflare Workers build (the `workerd` export condition): the
 * Worker's own fetch. undici needs sockets a Worker does not give, so it is not in this build;
 * the options that only undici can honour are refused when the client is made.
 */
export function createDefaultTransport(dispatcher: Dispatcher | undefined, proxy: ProxyConfig | undefined): Transport {
  const option = dispatcher ? 'dispatcher' : proxy ? 'proxy' : undefined;
  if (option) {
    throw new ValidationError(
      `The ${option} option cannot be used on Cloudflare Workers`,
      [
        {
          path: option,
          message:
            "it needs undici, which cannot open sockets in a Worker: leave it out (the Worker's fetch is used), or pass your own `fetch`",
        },
      ],
      { code: 'validation.options' },
    );
  }
  return new FetchTransport((url, init) => fetch(url, init));
}
