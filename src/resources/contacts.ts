import { openObject } from '../core/call/parse.js';
import { ValidationError } from '../errors.js';
import { readFields } from '../internal/values/input.js';
import type { JsonObject } from '../types/json.js';
import type { RequestOptions } from '../types/options.js';
import type { ContactLookupParams, ListQuery } from '../types/query.js';
import type { APIPromise } from '../types/response.js';
import { APIResource } from './resource.js';

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
  lookup(params: ContactLookupParams, options?: RequestOptions): APIPromise<JsonObject> {
    const request = () => ({ query: checkLookupParams(params) });
    return this.executor.run('lookupContact', { request, parse: (r) => openObject(r, 'lookupContact') }, options);
  }
}

/** Both phones are required, non-blank strings; nothing else is sent. */
function checkLookupParams(params: unknown): ContactLookupParams & ListQuery {
  const what = 'Invalid contacts.lookup parameters';
  const fields = readFields(params, what, "{ phone: '+15550000002', sender_phone: '+15550000001' }");
  const issues = (['phone', 'sender_phone'] as const)
    .filter((field) => typeof fields[field] !== 'string' || (fields[field] as string).trim() === '')
    .map((field) => ({ path: field, message: 'is required (a non-empty phone string)' }));
  if (issues.length > 0) throw new ValidationError(what, issues);
  return { phone: fields['phone'] as string, sender_phone: fields['sender_phone'] as string };
}
