/**
 * `fastSchema` is opt-in and fenced: whatever Zod schema it wraps, it loads without throwing and
 * parses exactly as the schema's own `safeParse` does (verdict, value, issues); it only takes
 * the allocation-free path for a schema whose every construct the precheck knows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compiledLooseObject, fastSchema } from '../../../src/schemas/fast-path.js';
import '../../../src/schemas/validators.js'; // loads zod's English messages, as the SDK does
import * as z from '../../../src/schemas/zod.js';

const SEED = 20261121;

/** Values near the edges the supported constructs draw: numbers, strings, objects, holders. */
const edgeValues = fc.oneof(
  fc.constantFrom(1, -0, 1.5, Number.NaN, Infinity, 2 ** 53, -(2 ** 53) + 1, '', 'a', 'aaa', 'b', null, true),
  fc.constantFrom('x@y.io', 'not-an-email', '2026-11-21T10:00:00Z', '5', ' a '),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 4 }),
);

/** Objects shaped like the test schemas' fields, valid or not, held in different ways. */
const objects = fc
  .tuple(
    fc.record(
      { id: fc.oneof(fc.nat(), edgeValues), name: fc.oneof(fc.string(), edgeValues), flag: edgeValues },
      { requiredKeys: [] },
    ),
    fc.dictionary(fc.string({ maxLength: 6 }), fc.anything(), { maxKeys: 2 }),
    fc.constantFrom<(value: object) => object>(
      (value) => value,
      (value) => Object.create(value),
      (value) => Object.assign(Object.create(null), value),
      (value) => Object.defineProperty({ ...value }, '__proto__', { value: { x: 1 }, enumerable: true }),
    ),
  )
  .map(([known, extra, hold]) => hold({ ...extra, ...known }));

const inputs = fc.oneof(edgeValues, objects, fc.anything({ withNullPrototype: true, withBoxedValues: true }));

function expectParsesLikeZod(schema: z.ZodMiniType, runs = 300) {
  const wrapped = fastSchema(schema);
  fc.assert(
    fc.property(inputs, (input) => {
      const fast = wrapped.safeParse(input);
      const plain = schema.safeParse(input);
      expect(fast.success).toBe(plain.success);
      if (fast.success) expect(fast.data).toStrictEqual(plain.data);
      else expect(fast.error.issues).toStrictEqual(plain.error?.issues);
    }),
    { numRuns: runs, seed: SEED },
  );
  return wrapped;
}

describe('fastSchema', () => {
  it('wraps a schema with constructs the precheck does not know without throwing, and parses as Zod does', () => {
    const unsupported = {
      boolean: z.boolean(),
      optional: z.optional(z.string()),
      enum: z.enum(['a', 'b']),
      union: z.union([z.string(), z.number()]),
      array: z.array(z.string()),
      strictObject: z.strictObject({ id: z.int() }),
      strippingObject: z.object({ id: z.int() }),
      email: z.email(),
      isoDateTime: z.iso.datetime(),
      coerced: z.coerce.number(),
      trimmed: z.string().check(z.trim()),
      transformed: z.pipe(
        z.string(),
        z.transform((value) => value.length),
      ),
      withDefault: z._default(z.string(), 'none'),
      mixed: compiledLooseObject({
        id: z.int(),
        flag: z.boolean(),
        name: z.optional(z.string()),
        kind: z.enum(['a', 'b']),
        either: z.union([z.string(), z.null()]),
        tags: z.array(z.string()),
      }),
    };
    for (const [name, schema] of Object.entries(unsupported)) {
      const wrapped = expectParsesLikeZod(schema, 150);
      expect({ name, prechecked: wrapped.prechecked }).toStrictEqual({ name, prechecked: false });
    }
  });

  it('takes the fast path for the constructs the precheck knows, and agrees with Zod on every input', () => {
    const supported = {
      int: z.int(),
      intCheck: z.number().check(z.int()),
      number: z.number(),
      string: z.string(),
      regex: z.string().check(z.regex(/^a+$/)),
      twoRegexes: z.string().check(z.regex(/^a/), z.regex(/a$/)),
      nullable: z.nullable(z.int()),
      custom: z.custom<string>((value) => typeof value === 'string' && value.length < 2),
      object: z.looseObject({ id: z.int(), name: z.nullable(z.string()) }),
      nested: compiledLooseObject({ id: z.int(), inner: z.nullable(z.looseObject({ name: z.string() })) }),
    };
    for (const [name, schema] of Object.entries(supported)) {
      const wrapped = expectParsesLikeZod(schema);
      expect({ name, prechecked: wrapped.prechecked }).toStrictEqual({ name, prechecked: true });
    }
  });

  it('returns a valid value as given, and runs afterParse on both paths without changing the input', () => {
    const schema = z.looseObject({ id: z.int(), tags: z.custom<object>((v) => typeof v === 'object' && v !== null) });
    const afterParse = (value: z.output<typeof schema>) =>
      Array.isArray(value.tags) ? { ...value, tags: { count: value.tags.length } } : value;
    const wrapped = fastSchema(schema, { afterParse });
    expect(wrapped.prechecked).toBe(true);

    const plain = { id: 1, tags: { a: 1 } };
    expect((wrapped.safeParse(plain) as { data: unknown }).data).toBe(plain);

    const fastInput = { id: 1, tags: [1, 2] }; // valid as is: the fast path, then afterParse
    const slowInput = Object.assign(Object.create(null), fastInput); // Zod's copy, then afterParse
    for (const input of [fastInput, slowInput]) {
      expect(wrapped.safeParse(input)).toStrictEqual({ success: true, data: { id: 1, tags: { count: 2 } } });
      expect(input.tags).toStrictEqual([1, 2]);
    }
    expect(wrapped.safeParse({ id: 1.5, tags: [] }).success).toBe(false);
  });
});
