import { causeSentence } from '../cause-sentence.js';
import { rejectedCall } from '../core/call/api-promise.js';
import { mayHaveBeenProcessed } from '../core/call/classify.js';
import type { ApiResult } from '../core/call/response.js';
import { issuesFromZod, OutcomeUnknownError, ResponseValidationError } from '../errors.js';
import { type CheckedRawRequest, checkRawRequest } from '../internal/requests/raw-request.js';
import type { JsonValue } from '../types/json.js';
import type { RequestOptions } from '../types/options.js';
import type { RawRequest, ResultSchema } from '../types/request.js';
import type { APIPromise } from '../types/response.js';
import { APIResource } from './resource.js';

/** `client.request()`: endpoints the SDK does not wrap, through the same executor as every call. */
export class RawRequests extends APIResource {
  /** See `MessagingClient.request`. */
  send<T = JsonValue>(given: RawRequest<T>, options: RequestOptions | undefined, apiBase: string): APIPromise<T> {
    let checked: CheckedRawRequest<T>;
    try {
      checked = checkRawRequest<T>(given, apiBase);
    } catch (error) {
      return rejectedCall(error);
    }
    const { route, query, bodyText, schema } = checked;
    const body = bodyText === undefined ? undefined : { kind: 'json' as const, text: bodyText };
    const mapError = route.idempotent ? undefined : (error: unknown) => outcomeOf(error, route.label);
    const parse = (result: ApiResult) => parseRaw(result, route.label, schema);
    return this.executor.runRoute(route, { request: { query, body }, parse, mapError }, options);
  }
}

/** A request that changes something and may have been processed is not a plain failure. */
function outcomeOf(error: unknown, label: string): unknown {
  if (!mayHaveBeenProcessed(error)) return error;
  const cause = error as Error;
  return new OutcomeUnknownError(
    `${label} may have been processed: the request may have reached the service, but no answer says what happened. ${causeSentence(cause.message)} ` +
      'The SDK did not retry it. Check its effect before sending it again.',
    cause,
  );
}

function parseRaw<T>(result: ApiResult, label: string, schema: ResultSchema<T> | undefined): T {
  if (!schema) return result.body as T;
  const parsed = schema.safeParse(result.body);
  if (parsed.success) return parsed.data;
  throw new ResponseValidationError(label, result.status, result.body, issuesFromZod(parsed.error));
}
