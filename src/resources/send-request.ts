import type { RequestBody, SendLanes } from '../core/call/call-spec.js';
import { issuesFromZod, ValidationError } from '../errors.js';
import type { loadSchemas } from '../schemas/load.js';
import type { SendMessageParams } from '../types/send.js';

/** The schemas, once loaded. */
export type Schemas = Awaited<ReturnType<typeof loadSchemas>>;

/** The words a send's `ValidationError` starts with. */
export const SEND_PARAMS = 'Invalid send parameters';

/**
 * The checked copy of a send's parameters, made once: the body of every attempt is built from
 * it, never from the caller's object again.
 */
export function checkSendParams(
  fields: Record<string, unknown>,
  schema: Schemas['sendMessageParamsSchema'],
): SendMessageParams {
  const checked = schema.safeParse(fields);
  if (!checked.success) throw new ValidationError(SEND_PARAMS, issuesFromZod(checked.error));
  return checked.data as SendMessageParams;
}

/** A text message is a JSON body; the multipart stack loads on the first media send only. */
export function requestOf(params: SendMessageParams): { body: RequestBody } | Promise<{ body: RequestBody }> {
  if (params.type === 'text') return { body: { kind: 'json', text: JSON.stringify(params) } };
  return import('../core/media/media-part.js').then(async ({ mediaSendBody }) => ({
    body: await mediaSendBody(params),
  }));
}

/** A send's request with its lanes, synchronous when both are. */
export function withLanes(
  request: { body: RequestBody } | Promise<{ body: RequestBody }>,
  lanes: SendLanes | Promise<SendLanes>,
): { body: RequestBody; lanes: SendLanes } | Promise<{ body: RequestBody; lanes: SendLanes }> {
  if (!(request instanceof Promise) && !(lanes instanceof Promise)) return { ...request, lanes };
  return Promise.all([request, lanes]).then(([made, keys]) => ({ ...made, lanes: keys }));
}
