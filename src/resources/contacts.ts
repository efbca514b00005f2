import { openObject } from '../core/parse.js';
import { ENDPOINTS, endpointLabel } from '../endpoints.js';
import { ValidationError } from '../errors.js';
import type { RequestOptions } from '../options.js';
import type { JsonObject } from '../types/json.js';
import { APIResource } from './resource.js';

/** Query of `contacts.lookup`. */
export interface ContactLookupParams {
  /** The recipient phone to check. */
  phone: string;
  /** The sending number's phone. */
  sender_phone: string;
}

/** `client.contacts`: recipient reachability. */
export class Contacts extends APIResource {
  /**
   * Checks whether a recipient can receive messages from a sender number. Scope: `contacts.lookup`.
   * The response's fields are not specified: the SDK returns the service's object as sent.
   *
   * @example
   * ```ts
   * const result = await client.contacts.lookup({ phone: '+15550000002', sender_phone: '+15550000001' })
   * ```
   */
  async lookup(params: ContactLookupParams, options?: RequestOptions): Promise<JsonObject> {
    const issues = (['phone', 'sender_phone'] as const)
      .filter((field) => typeof params?.[field] !== 'string' || params[field].trim() === '')
      .map((field) => ({ path: field, message: 'is required (a non-empty phone string)' }));
    if (issues.length > 0) throw new ValidationError('Invalid contacts.lookup parameters', issues);
    const { method, path } = ENDPOINTS.lookupContact;
    const endpoint = endpointLabel('lookupContact');
    const result = await this.executor.call(
      { endpoint, method, path, query: { phone: params.phone, sender_phone: params.sender_phone } },
      options,
    );
    return openObject(result, endpoint);
  }
}
