import { readFields } from './internal/values/input.js';
import { checkSendParams, SEND_PARAMS } from './resources/send-request.js';
import { loadSchemas } from './schemas/load.js';
import type { SendMessageParams } from './types/send.js';

/**
 * Checks send parameters exactly as `client.messages.send` does, without sending: the same
 * checks, the same `ValidationError` with the same words, and no client, request or network.
 * Resolves with the checked copy, which is what `send` builds its request from. Use it to check
 * what a form, a job or an agent hands you before you queue it or ask someone to approve it.
 * Media inputs are only checked, not read: a stream is not consumed.
 *
 * @param params what would be passed to `messages.send`: any value (non-objects are refused too)
 * @returns the checked copy of `params`
 * @throws ValidationError when `messages.send` would refuse `params` before any request
 *
 * @example
 * ```ts
 * import { ValidationError, validateSendParams } from 'tenant-messaging'
 *
 * try {
 *   const params = await validateSendParams(request.body)
 *   await queue.add('send', params)
 * } catch (error) {
 *   if (error instanceof ValidationError) return reply(422, error.issues)
 *   throw error
 * }
 * ```
 */
export async function validateSendParams(params: unknown): Promise<SendMessageParams> {
  const fields = readFields(params, SEND_PARAMS, '{ sender_phone, to_phone, type, content }');
  const { sendMessageParamsSchema } = await loadSchemas();
  return checkSendParams(fields, sendMessageParamsSchema);
}
