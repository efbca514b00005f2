import { openList } from '../core/call/parse.js';
import type { JsonObject } from '../types/json.js';
import type { RequestOptions } from '../types/options.js';
import type { APIPromise } from '../types/response.js';
import { APIResource } from './resource.js';

/** `client.senderNumbers`: the tenant's registered sending numbers. */
export class SenderNumbers extends APIResource {
  /**
   * Lists the tenant's sender numbers. Any active key may call it. Their fields are not specified:
   * each is the service's object as sent (a number may be in `pending_account_verification`).
   *
   * @example
   * ```ts
   * for (const number of await client.senderNumbers.list()) console.log(number)
   * ```
   */
  list(options?: RequestOptions): APIPromise<JsonObject[]> {
    return this.executor.run(
      'listSenderNumbers',
      { request: {}, parse: (r) => openList(r, 'listSenderNumbers') },
      options,
    );
  }
}
