/**
 * What the webhook option tests share (verify-options and sign-options): the secret and body they
 * sign, the check that a bad argument is refused before any HMAC, and fast-check arbitraries for the
 * values outside each domain.
 */
import fc from 'fast-check';
import { ValidationError } from 'tenant-messaging';
import { WebhookVerificationError } from 'tenant-messaging/webhooks';
import { expect, vi } from 'vitest';

export const KEY = 'c2VjcmV0IG9mIHRoZSB2ZXJpZmllciB0ZXN0cw==';
export const secret = `whsec_${KEY}`;
export const body = JSON.stringify({
  type: 'message.read',
  timestamp: '2026-11-25T04:00:00.000Z',
  data: { id: 'o-1' },
});
export const MAX_TOLERANCE = 86_400;
/** A signature from 2001, which no option may let through (the tester's replay). */
export const IN_2001 = new Date('2001-09-09T01:46:40Z');

/** What a call threw or rejected with, or 'accepted'. */
export async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
    return 'accepted';
  } catch (error) {
    return error;
  }
}

/**
 * What `call` threw, asserted to be a ValidationError that names `path` and computed no HMAC:
 * it was thrown before any signature was made or looked at.
 */
export async function refusedBeforeAnySignature(call: () => Promise<unknown>, path: string): Promise<ValidationError> {
  const importKey = vi.spyOn(crypto.subtle, 'importKey');
  const error = await outcome(call);
  expect(error).toBeInstanceOf(ValidationError);
  expect(error).not.toBeInstanceOf(WebhookVerificationError);
  const { issues, message } = error as ValidationError;
  expect(issues.map((issue) => issue.path)).toContain(path);
  expect(message).toContain(`- ${path}: `);
  expect(message).not.toContain(KEY);
  expect(importKey).not.toHaveBeenCalled();
  importKey.mockRestore();
  return error as ValidationError;
}

// The domains' complements, by kind.
export const hostileProxy = new Proxy(
  {},
  {
    get: () => {
      throw new Error('trap');
    },
    ownKeys: () => {
      throw new Error('trap');
    },
  },
);
/** Neither a number, a string nor a Date. */
export const otherKinds = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, Symbol('s'), [], {}, () => 300, new Map(), Number, hostileProxy),
  fc.bigInt(),
  fc.array(fc.integer(), { minLength: 1, maxLength: 3 }),
  fc.object({ maxDepth: 1, maxKeys: 3 }),
);
export const numericStrings = fc.oneof(
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('300', ' 60 ', ''),
);
export const invalidDates = fc.constantFrom(new Date('garbage'), new Date(Number.NaN), new Date(8.64e15 + 1));
export const validDates = fc.date({ min: new Date(-1e14), max: new Date(1e14), noInvalidDate: true });
/** A Date's look-alikes: epoch numbers, ISO strings, objects with a getTime, a Proxy of a Date. */
export const dateLikes = fc.oneof(
  validDates.map((date) => date.getTime()),
  validDates.map((date) => date.toISOString()),
  validDates.map((date) => ({ getTime: () => date.getTime() })),
  validDates.map((date) => new Proxy(date, {})),
);
export const badDates = fc.oneof(invalidDates, dateLikes, fc.double(), fc.string({ maxLength: 10 }), otherKinds);
/** Never canonical base64: '!' and ' ' are not base64 characters. */
export const badSecrets = fc.oneof(
  fc.constantFrom<unknown>('', 'whsec_', undefined, 'whsec_AAAA\n', 'plain-password'),
  fc.string({ maxLength: 20 }).map((text) => `${text}!`),
  fc.string({ maxLength: 20 }).map((text) => `whsec_${text} `),
  fc.double(),
  otherKinds,
);
/** One argument or option spoiled, by the path the error must name. */
export type Spoiled = readonly [path: string, value: unknown];

/**
 * The path the error names for a spoiled argument: the argument's own, but for an options object
 * with an unknown key (that key, `known` being the options' names) and headers with a value that is
 * not a string (`headers.<name>`; for a `get()` answering one, the first header it is asked for).
 */
export function namedPath(path: string, value: unknown, known: readonly string[] = []): string {
  if (typeof value !== 'object' || value === null || value === hostileProxy || Array.isArray(value)) return path;
  const keys = Object.keys(value);
  if (path === 'options') return keys.find((key) => !known.includes(key)) ?? path;
  if (path === 'headers' && keys[0] !== undefined) {
    return keys[0] === 'get' ? 'headers.webhook-id' : `headers.${keys[0].toLowerCase()}`;
  }
  return path;
}
