/**
 * signWebhook fails closed, as verifyWebhook does (verify-options.test.ts): an argument or option
 * outside its domain is a ValidationError naming it, thrown before anything is signed; any id a
 * header can carry is signed unchanged, at any valid Date.
 */
import fc from 'fast-check';
import { signWebhook, verifyWebhook } from 'tenant-messaging/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  badDates,
  badSecrets,
  body,
  hostileProxy,
  namedPath,
  otherKinds,
  refusedBeforeAnySignature,
  type Spoiled,
  secret,
  validDates,
} from './options-domains.js';

/** Any moment: signing reads no clock when given a timestamp. */
const NOW = Date.UTC(2026, 11, 7, 9, 0, 0);

afterEach(() => {
  vi.restoreAllMocks();
});

const signSpoils: fc.Arbitrary<Spoiled> = fc.oneof(
  fc
    .oneof(
      fc.constantFrom<unknown>('', ' evt', 'evt ', 'evt\r\nx-injected: 1', 'évt', 'evt\u0000', '\t'),
      fc.string({ maxLength: 10 }).map((text) => `${text}\n`),
      fc.double(),
      otherKinds,
    )
    .map((value): Spoiled => ['id', value]),
  badDates.filter((value) => value !== undefined).map((value): Spoiled => ['timestamp', value]),
  badSecrets.map((value): Spoiled => ['secret', value]),
  fc
    .oneof(fc.constantFrom<unknown>(undefined, new Uint8Array(2), JSON.parse(body)), fc.double(), otherKinds)
    .map((value): Spoiled => ['body', value]),
  fc
    .oneof(
      fc.constantFrom<unknown>(undefined, null, 'evt', [], 1n, Symbol('o'), () => undefined, hostileProxy),
      fc.constantFrom({ id: 'evt', now: new Date(NOW) }),
    )
    .map((value): Spoiled => ['options', value]),
);

describe('signWebhook: a bad argument or option', () => {
  it('is a ValidationError naming it, before anything is signed', async () => {
    await fc.assert(
      fc.asyncProperty(signSpoils, async ([path, value]) => {
        const args: Record<string, unknown> = { body, secret, options: { id: 'evt_1', timestamp: new Date(NOW) } };
        if (path === 'id' || path === 'timestamp') args.options = { ...(args.options as object), [path]: value };
        else args[path] = value;
        await refusedBeforeAnySignature(
          () => signWebhook(args.body as string, args.secret as string, args.options as never),
          namedPath(path, value, ['id', 'timestamp']),
        );
      }),
      { numRuns: 200, seed: 31 },
    );
  });

  it('signs any id a header carries unchanged, at any valid Date', async () => {
    const ids = fc.stringMatching(/^[\x21-\x7e](?:[\x20-\x7e]{0,30}[\x21-\x7e])?$/);
    await fc.assert(
      fc.asyncProperty(ids, validDates, async (id, timestamp) => {
        const headers = await signWebhook(body, secret, { id, timestamp });
        expect(new Headers(headers).get('webhook-id')).toBe(id);
        expect(await verifyWebhook(body, new Headers(headers), secret, { now: timestamp })).toEqual(JSON.parse(body));
      }),
      { numRuns: 100, seed: 32 },
    );
  });
});
