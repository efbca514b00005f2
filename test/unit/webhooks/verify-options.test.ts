/**
 * verifyWebhook fails closed (signWebhook's options: sign-options.test.ts). Every argument and
 * option has a domain: a value outside it is a ValidationError naming it, thrown before any HMAC is
 * computed (so before any signature is looked at), whether the webhook's signature is fresh, stale
 * or garbage; and no value inside it turns the replay check off. Property tests with fast-check over each domain's edges:
 * NaN, ±0, ±Infinity, huge and negative numbers, strings (numeric ones too), Invalid Dates, Date
 * look-alikes, null, undefined, arrays, objects, symbols, bigints, functions and hostile Proxies.
 */
import fc from 'fast-check';
import { signWebhook, verifyWebhook, WebhookVerificationError } from 'tenant-messaging/webhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  badDates,
  badSecrets,
  body,
  hostileProxy,
  IN_2001,
  invalidDates,
  KEY,
  MAX_TOLERANCE,
  namedPath,
  numericStrings,
  otherKinds,
  outcome,
  refusedBeforeAnySignature,
  type Spoiled,
  secret,
  validDates,
} from './options-domains.js';

// The verifier reads the clock when no `now` is given: a fake one, still at NOW (the unit tier
// reads no real clock, and a property's run may take longer than any tolerance).
const NOW = Date.UTC(2026, 11, 7, 9, 0, 0);
beforeAll(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
});
afterAll(() => {
  vi.useRealTimers();
});

let fresh: Record<string, string>;
let from2001: Record<string, string>;
beforeAll(async () => {
  fresh = { ...(await signWebhook(body, secret, { id: 'evt_fresh' })) };
  from2001 = { ...(await signWebhook(body, secret, { id: 'evt_2001', timestamp: IN_2001 })) };
});
afterEach(() => {
  vi.restoreAllMocks();
});

const badTolerances = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MAX_VALUE, -Number.MIN_VALUE),
  fc.double({ max: -Number.MIN_VALUE, noNaN: true }),
  fc.double({ min: MAX_TOLERANCE + 1e-6, noNaN: true }),
  numericStrings,
  invalidDates,
  validDates,
  otherKinds,
);
/** Not a header's value: neither a string, an array of strings, nor absent (undefined, null, []). */
const notHeaderValues = fc
  .oneof(fc.double(), otherKinds)
  .filter((value) => value !== null && !(Array.isArray(value) && value.length === 0));
const badHeaders = fc.oneof(
  fc.constantFrom<unknown>(undefined, null, 0, '', true, Symbol('h'), 5n, () => fresh, hostileProxy),
  fc.string({ maxLength: 20 }),
  fc.double(),
  fc.array(fc.string(), { maxLength: 3 }),
  // A header verifyWebhook reads, with a value that is not a string or an array of strings.
  fc
    .tuple(fc.constantFrom('webhook-id', 'Webhook-Signature', 'WEBHOOK-TIMESTAMP'), notHeaderValues)
    .map(([name, value]) => ({ [name]: value })),
  // A get() answering something that is not a string.
  notHeaderValues.map((value) => ({ get: () => value })),
);
const badBodies = fc.oneof(
  fc.constantFrom<unknown>(
    undefined,
    JSON.parse(body),
    new ArrayBuffer(4),
    new Uint16Array(2),
    new DataView(new ArrayBuffer(2)),
  ),
  fc.double(),
  otherKinds,
);
const badOptionObjects = fc.oneof(
  fc.constantFrom<unknown>(null, 0, 'tolerance', true, Symbol('o'), 1n, [300], () => undefined, hostileProxy),
  fc.constantFrom({ tolerence: 600 }, { timestamp: new Date(NOW) }, { maxAge: 60 }),
);

const verifySpoils: fc.Arbitrary<Spoiled> = fc.oneof(
  badTolerances.map((value): Spoiled => ['tolerance', value]),
  badDates.map((value): Spoiled => ['now', value]),
  badHeaders.map((value): Spoiled => ['headers', value]),
  badSecrets.map((value): Spoiled => ['secret', value]),
  badBodies.map((value): Spoiled => ['body', value]),
  badOptionObjects.map((value): Spoiled => ['options', value]),
);

describe('verifyWebhook: a bad argument or option', () => {
  it('is a ValidationError naming it, before any signature is looked at, whatever the signature', async () => {
    const requests = fc.constantFrom('fresh', 'from 2001', 'garbage');
    await fc.assert(
      fc.asyncProperty(verifySpoils, requests, async ([path, value], request) => {
        const args: Record<string, unknown> = {
          body: request === 'garbage' ? 'not json at all' : body,
          headers:
            request === 'garbage'
              ? { ...fresh, 'webhook-signature': 'v1,AAAA' }
              : request === 'fresh'
                ? fresh
                : from2001,
          secret,
          options: {},
        };
        if (path === 'tolerance' || path === 'now') args.options = { [path]: value };
        else args[path] = value;
        await refusedBeforeAnySignature(
          () => verifyWebhook(args.body as string, args.headers as never, args.secret as string, args.options as never),
          namedPath(path, value, ['tolerance', 'now']),
        );
      }),
      { numRuns: 200, seed: 28 },
    );
  });
});

describe('verifyWebhook: no valid option turns the replay check off', () => {
  const tolerances = fc.oneof(
    fc.constantFrom(undefined, 0, -0, 1, 300, MAX_TOLERANCE),
    fc.double({ min: 0, max: MAX_TOLERANCE, noNaN: true }),
  );
  const nows = fc.option(validDates, { nil: undefined, freq: 4 });

  it('a signature further from now than the tolerance is refused as stale or future', async () => {
    await fc.assert(
      fc.asyncProperty(
        tolerances,
        nows,
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.boolean(),
        async (tolerance, now, beyond, past) => {
          const tol = tolerance ?? 300;
          const seconds = Math.floor((now ?? new Date(NOW)).getTime() / 1000);
          const at = past ? Math.floor(seconds - tol) - beyond : Math.ceil(seconds + tol) + beyond;
          const headers = await signWebhook(body, secret, { id: 'evt_replay', timestamp: new Date(at * 1000) });
          const error = await outcome(() => verifyWebhook(body, headers, secret, { tolerance, now }));
          expect(error).toBeInstanceOf(WebhookVerificationError);
          expect((error as WebhookVerificationError).reason).toBe(past ? 'stale-timestamp' : 'future-timestamp');
        },
      ),
      { numRuns: 200, seed: 29 },
    );
  });

  it('a signature within the tolerance of now verifies', async () => {
    await fc.assert(
      fc.asyncProperty(
        tolerances,
        validDates,
        fc.double({ min: -1, max: 1, noNaN: true }),
        async (tolerance, now, share) => {
          const within = Math.trunc(share * Math.floor(tolerance ?? 300));
          const at = Math.floor(now.getTime() / 1000) + within;
          const headers = await signWebhook(body, secret, { id: 'evt_ok', timestamp: new Date(at * 1000) });
          expect(await verifyWebhook(body, headers, secret, { tolerance, now })).toEqual(JSON.parse(body));
        },
      ),
      { numRuns: 200, seed: 30 },
    );
  });

  it('a fresh signature verifies with the defaults, as bytes or text, from a record or Headers', async () => {
    expect(await verifyWebhook(body, fresh, secret)).toEqual(JSON.parse(body));
    expect(await verifyWebhook(new TextEncoder().encode(body), new Headers(fresh), secret, {})).toEqual(
      JSON.parse(body),
    );
    expect(await verifyWebhook(body, fresh, secret, { tolerance: undefined, now: undefined })).toEqual(
      JSON.parse(body),
    );
  });
});

describe("the tester's findings", () => {
  it('a NaN tolerance or an Invalid Date is a ValidationError, not a signature from 2001 accepted', async () => {
    const unset = Number(process.env.TENANT_MESSAGING_SURELY_UNSET);
    const nan = await refusedBeforeAnySignature(
      () => verifyWebhook(body, from2001, secret, { tolerance: unset }),
      'tolerance',
    );
    expect(nan.message).toContain('got NaN');
    const garbage = await refusedBeforeAnySignature(
      () => verifyWebhook(body, from2001, secret, { now: new Date('garbage') }),
      'now',
    );
    expect(garbage.message).toContain('Invalid Date');
  });

  it('a negative tolerance fails fast as a ValidationError, not a refusal of every webhook', async () => {
    await refusedBeforeAnySignature(() => verifyWebhook(body, fresh, secret, { tolerance: -5 }), 'tolerance');
  });

  it('headers: null is a ValidationError, not a bare TypeError', async () => {
    await refusedBeforeAnySignature(() => verifyWebhook(body, null as never, secret), 'headers');
  });
});

describe('verifyWebhook: the domains, case by case', () => {
  it('-0 is a tolerance of 0, and 86400 the largest; Infinity and 86401 are refused', async () => {
    const now = new Date(Number(fresh['webhook-timestamp']) * 1000);
    expect(await verifyWebhook(body, fresh, secret, { tolerance: -0, now })).toEqual(JSON.parse(body));
    const later = new Date(now.getTime() + 1000);
    const error = await outcome(() => verifyWebhook(body, fresh, secret, { tolerance: -0, now: later }));
    expect((error as WebhookVerificationError).reason).toBe('stale-timestamp');
    const dayLater = new Date(now.getTime() + MAX_TOLERANCE * 1000);
    expect(await verifyWebhook(body, fresh, secret, { tolerance: MAX_TOLERANCE, now: dayLater })).toEqual(
      JSON.parse(body),
    );
    for (const tolerance of [Number.POSITIVE_INFINITY, MAX_TOLERANCE + 1]) {
      await refusedBeforeAnySignature(() => verifyWebhook(body, from2001, secret, { tolerance }), 'tolerance');
    }
  });

  it('names every problem at once, and never quotes the secret', async () => {
    const error = await refusedBeforeAnySignature(
      () => verifyWebhook({} as never, [] as never, `whsec_${KEY}=`, { tolerance: '300' as never, now: 0 as never }),
      'secret',
    );
    expect(error.issues.map((issue) => issue.path)).toEqual(['body', 'headers', 'secret', 'tolerance', 'now']);
    expect(error.message).toMatch(/^Invalid verifyWebhook arguments:\n/);
  });

  it('an unknown option is refused, with the one it was likely meant to be', async () => {
    const error = await refusedBeforeAnySignature(
      () => verifyWebhook(body, fresh, secret, { tolerence: 600 } as never),
      'tolerence',
    );
    expect(error.message).toContain('did you mean tolerance?');
  });

  it('a getter, get() or Proxy trap that throws is a ValidationError with the thrown error as cause', async () => {
    const boom = new Error('getter exploded');
    const throwing = [
      {
        'webhook-id': 'evt',
        get 'webhook-signature'(): string {
          throw boom;
        },
      },
      {
        get: () => {
          throw boom;
        },
      },
    ];
    for (const headers of throwing) {
      const error = await refusedBeforeAnySignature(() => verifyWebhook(body, headers as never, secret), 'headers');
      expect(error.cause).toBe(boom);
    }
    const options = {
      get tolerance(): number {
        throw boom;
      },
    };
    const error = await refusedBeforeAnySignature(() => verifyWebhook(body, fresh, secret, options), 'options');
    expect(error.cause).toBe(boom);
  });

  it('a header value that is not a string is named; an array of strings is read as one value', async () => {
    await refusedBeforeAnySignature(
      () =>
        verifyWebhook(
          body,
          { 'webhook-id': 'evt', 'webhook-signature': 'v1,AAAA', 'Webhook-Timestamp': 1 } as never,
          secret,
        ),
      'headers.webhook-timestamp',
    );
    const split = { ...fresh, 'webhook-signature': ['v1,AAAA', fresh['webhook-signature'] as string] };
    expect(await verifyWebhook(body, split, secret)).toEqual(JSON.parse(body));
  });
});
