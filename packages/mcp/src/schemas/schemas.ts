/**
 * The Zod schemas that check each tool's arguments, with this package's own zod/mini
 * (`prepare_send` is checked by the SDK's `validateSendParams` instead, in prepare-send.ts). What
 * `tools/list` shows of them is in tool-schemas.ts, from the SDK's OpenAPI document;
 * test/integration/mcp.test.ts checks that the two agree.
 */
import type { Issue } from 'tenant-messaging';
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { WAIT_TIMEOUT } from '../state/limits.js';

// zod/mini ships no messages ("Invalid input" for everything): the English ones, as the SDK's
// own zod says them, so a refused argument says what was expected.
z.config(en());

/** A message log id: an integer, as the MessageLog's `id`, at least 1 (spec section 8). */
const logId = z.number().check(z.int()).check(z.gte(1, 'must be a message log id: an integer >= 1'));

/**
 * The issues of a refused argument as the SDK's ValidationError lists them: `field.sub` and the message.
 *
 * @example
 * ```ts
 * new ValidationError('Invalid arguments for get_message', issuesOf(checked.error))
 * ```
 */
export function issuesOf(error: { readonly issues: readonly { path: PropertyKey[]; message: string }[] }): Issue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).filter(Boolean).join('.'),
    message: issue.message,
  }));
}

/** The largest page `list_messages` asks for: a bound on what a model can make the server request. */
export const MAX_PAGE = 1_000_000;

/** The longest approval token accepted (they are 47 characters). */
export const MAX_APPROVAL_LENGTH = 200;

/** The arguments of each tool that has fixed ones, checked before its handler runs. */
export const INPUTS = {
  get_message: z.strictObject({ id: logId }),
  list_messages: z.strictObject({
    page: z.optional(z.int().check(z.gte(1, 'must be a page number >= 1'), z.lte(MAX_PAGE, 'is too large'))),
  }),
  wait_for_delivery: z.strictObject({
    id: logId,
    timeout: z.optional(
      z
        .int()
        .check(
          z.gte(WAIT_TIMEOUT.min, `must be at least ${WAIT_TIMEOUT.min} ms`),
          z.lte(WAIT_TIMEOUT.max, `must be at most ${WAIT_TIMEOUT.max} ms (10 minutes): call again to wait longer`),
        ),
    ),
    until: z.optional(z.enum(['delivered', 'read'])),
  }),
  // The SDK's contacts.lookup refuses blank phones itself, in its own words.
  lookup_contact: z.strictObject({ phone: z.string(), sender_phone: z.string() }),
  list_sender_numbers: z.strictObject({}),
  get_usage: z.strictObject({}),
  send_message: z.strictObject({
    approval: z
      .string()
      .check(z.minLength(1, 'must not be empty'), z.maxLength(MAX_APPROVAL_LENGTH, 'is not an approval')),
  }),
} as const;
