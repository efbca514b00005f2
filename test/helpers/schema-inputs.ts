/**
 * Inputs for the schema property tests (schema-fast-paths, send-schema-fast-path): objects shaped
 * like a valid one with fields broken, missing or added, own `__proto__` keys, and other holders.
 */
import fc from 'fast-check';

export const SEED = 20261121;

/** A field's value: usually a plausible one (`validWeight` in validWeight + 2), else anything. */
export const fieldValue = (valid: unknown, validWeight: number) =>
  fc.oneof(
    { weight: validWeight, arbitrary: fc.constant(valid) },
    { weight: 1, arbitrary: fc.constantFrom(null, undefined, '', 0, -1, 1.5, [], [1], {}, 'x') },
    { weight: 1, arbitrary: fc.anything() },
  );

/**
 * Objects shaped like `base`, each field possibly broken or missing, plus unknown fields.
 * `validWeight` sets how rarely a field is broken: high enough, and many objects are valid.
 */
export function objectsLike(base: Record<string, unknown>, validWeight = 3) {
  const keys = Object.keys(base);
  const fields = Object.fromEntries(keys.map((key) => [key, fieldValue(base[key], validWeight)]));
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: validWeight > 3 ? keys : [] }),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.anything(), { maxKeys: 3 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
}

/** An own "__proto__" key, as JSON.parse makes one (a plain assignment would set the prototype). */
export function withOwnProto(value: Record<string, unknown>, proto: unknown): Record<string, unknown> {
  return Object.defineProperty({ ...value }, '__proto__', { value: proto, enumerable: true, writable: true });
}

/** The same fields held another way than JSON.parse holds them. */
export const holders: ((value: Record<string, unknown>) => object)[] = [
  (value) => Object.create(value), // every field inherited
  (value) => Object.assign(Object.create(null), value), // no prototype
  (value) => Object.assign(new (class Log {})(), value), // a class instance
];
