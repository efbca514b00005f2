/**
 * The compiled object parser borrowed from zod's core (src/schemas/compiled-object.ts) must be a
 * drop-in for zod/mini's interpreted one: same verdict, same output, same issues, for any input.
 * This guards the borrowing against a zod release that changes either side.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compiledLooseObject, compiledStrictObject } from '../../src/schemas/compiled-object.js';
import { messageLogShape } from '../../src/schemas/message-log.js';
import '../../src/schemas/validators.js'; // loads zod's English messages, as the SDK does
import * as z from '../../src/schemas/zod.js';
import { messageLog } from '../helpers/server.js';

/** A field's value: usually a plausible one, sometimes anything at all. */
const fieldValue = (valid: unknown) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(valid) },
    { weight: 1, arbitrary: fc.constantFrom(null, undefined, '', 0, -1, 1.5, [], {}, 'x') },
    { weight: 1, arbitrary: fc.anything() },
  );

/** Objects shaped like `base`, each field possibly broken or missing, plus unknown fields. */
function objectsLike(base: Record<string, unknown>) {
  const fields = Object.fromEntries(Object.entries(base).map(([key, value]) => [key, fieldValue(value)]));
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.anything(), { maxKeys: 3 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
}

function expectSameResult(compiled: z.ZodMiniType, interpreted: z.ZodMiniType, input: unknown) {
  const fast = compiled.safeParse(input);
  const slow = interpreted.safeParse(input);
  expect(fast.success).toBe(slow.success);
  if (slow.success) expect(fast.data).toStrictEqual(slow.data);
  else expect(fast.error?.issues).toStrictEqual(slow.error?.issues);
}

describe('compiled object schemas', () => {
  it('parse MessageLogs exactly as z.looseObject does', () => {
    const compiled = compiledLooseObject(messageLogShape);
    const interpreted = z.looseObject(messageLogShape);
    const log = messageLog({ delivery_status: 'delivered' });
    fc.assert(
      fc.property(objectsLike(log), (input) => expectSameResult(compiled, interpreted, input)),
      { numRuns: 500 },
    );
    // A valid log keeps its unknown fields and is a copy, not the caller's object.
    const input = { ...log, added_later: { x: 1 } };
    const parsed = compiled.parse(input);
    expect(parsed).toStrictEqual(input);
    expect(parsed).not.toBe(input);
  });

  it('reject unknown fields exactly as z.strictObject does', () => {
    const shape = {
      sender_phone: z.optional(z.string().check(z.refine((v) => v.trim().length > 0, 'must not be blank'))),
      sender_number_id: z.optional(z.int().check(z.gte(1))),
      to_phone: z.string(),
      type: z.literal('text'),
      content: z.string().check(z.minLength(1)),
      media: z.optional(z.undefined()),
    };
    const compiled = compiledStrictObject(shape);
    const interpreted = z.strictObject(shape);
    const valid = { sender_phone: '+15550000001', sender_number_id: 1, to_phone: '+2', type: 'text', content: 'Hi' };
    fc.assert(
      fc.property(objectsLike(valid), (input) => expectSameResult(compiled, interpreted, input)),
      { numRuns: 500 },
    );
    expect(compiled.safeParse({ ...valid, colour: 'red' }).error?.issues).toMatchObject([
      { code: 'unrecognized_keys', keys: ['colour'] },
    ]);
  });
});
