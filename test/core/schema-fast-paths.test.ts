/**
 * The two fast paths of schema checking must never disagree with Zod itself:
 * - the compiled object parser borrowed from zod's core (src/schemas/compiled-object.ts) is a
 *   drop-in for zod/mini's interpreted one: same verdict, same output, same issues;
 * - the allocation-free precheck (src/schemas/precheck.ts) accepts only what Zod accepts, with
 *   the same value, and does accept the logs the service really sends.
 * This guards both against a zod release that changes how schemas are defined or parsed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compiledLooseObject, compiledStrictObject } from '../../src/schemas/compiled-object.js';
import { messageLogSchema, messageLogShape } from '../../src/schemas/message-log.js';
import { precheck } from '../../src/schemas/precheck.js';
import '../../src/schemas/validators.js'; // loads zod's English messages, as the SDK does
import * as z from '../../src/schemas/zod.js';
import { messageLog } from '../helpers/server.js';

/** A field's value: usually a plausible one (`validWeight` in validWeight + 2), else anything. */
const fieldValue = (valid: unknown, validWeight: number) =>
  fc.oneof(
    { weight: validWeight, arbitrary: fc.constant(valid) },
    { weight: 1, arbitrary: fc.constantFrom(null, undefined, '', 0, -1, 1.5, [], {}, 'x') },
    { weight: 1, arbitrary: fc.anything() },
  );

/**
 * Objects shaped like `base`, each field possibly broken or missing, plus unknown fields.
 * `validWeight` sets how rarely a field is broken: high enough, and many objects are valid.
 */
function objectsLike(base: Record<string, unknown>, validWeight = 3) {
  const keys = Object.keys(base);
  const fields = Object.fromEntries(keys.map((key) => [key, fieldValue(base[key], validWeight)]));
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: validWeight > 3 ? keys : [] }),
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
    expect(Object.keys(compiled.shape)).toEqual(Object.keys(messageLogShape));
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

describe('precheck', () => {
  const zodSchema = z.looseObject(messageLogShape);
  const isValidAsIs = precheck(compiledLooseObject(messageLogShape));

  it('accepts only what Zod accepts, and Zod returns the same value', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(objectsLike(messageLog()), objectsLike(messageLog(), 60)), (input) => {
        if (!isValidAsIs(input)) return;
        accepted++;
        const parsed = zodSchema.safeParse(input);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(input);
      }),
      { numRuns: 1000 },
    );
    // The property is only worth something if the generator reaches the accepting side.
    expect(accepted).toBeGreaterThan(20);
  });

  it('accepts the logs the service sends, so that the fast path is the common one', () => {
    const logs = [
      messageLog(),
      messageLog({ delivery_status: 'read', sent_at: '2026-11-21T10:00:00.000000Z' }),
      messageLog({ recipient_user_id: null, conversation_id: null, message_id: null, content: null, sent_at: null }),
      messageLog({ delivery_status: 'queued_by_a_newer_api', message_type: 'sticker', added_later: [1] }),
      messageLog({ response_payload: { conversation_id: 1, message_id: 2, media_url: 'https://x/y.png', extra: 1 } }),
    ];
    for (const log of logs) {
      expect(isValidAsIs(log)).toBe(true);
      const parsed = messageLogSchema.safeParse(log);
      // The fast path hands back the caller's (freshly parsed) object itself.
      expect(parsed.success && parsed.data).toBe(log);
    }
  });

  it('leaves the rest to Zod: an empty PHP array as request_payload, and every broken log', () => {
    const phpEmpty = messageLog({ request_payload: [] });
    const parsed = messageLogSchema.safeParse(phpEmpty);
    expect(parsed.success && parsed.data.request_payload).toStrictEqual({});
    expect(phpEmpty['request_payload']).toStrictEqual([]); // the input is not changed

    // JSON.parse makes "__proto__" an own key; Zod's copy leaves it out, so the precheck defers.
    const withProto = JSON.parse(JSON.stringify(messageLog()).replace('{', '{"__proto__":{"polluted":true},'));
    expect(Object.hasOwn(withProto, '__proto__')).toBe(true);
    expect(isValidAsIs(withProto)).toBe(false);
    const viaFastPath = messageLogSchema.safeParse(withProto);
    expect(viaFastPath.success && Object.hasOwn(viaFastPath.data, '__proto__')).toBe(false);

    const broken = messageLog({ id: '42', sent_at: '21/11/2026' });
    const viaSchema = messageLogSchema.safeParse(broken);
    const viaZod = zodSchema.safeParse(broken);
    expect(viaSchema.success).toBe(false);
    expect(viaSchema.success ? [] : viaSchema.error.issues).toStrictEqual(viaZod.error?.issues);
  });

  it('refuses to derive a check from a construct it does not know', () => {
    expect(() => precheck(z.strictObject({ a: z.string() }))).toThrow(/not a looseObject/);
    expect(() => precheck(z.looseObject({ a: z.optional(z.string()) }))).toThrow(/optional field \(a\)/);
    expect(() => precheck(z.string().check(z.minLength(1)))).toThrow(/min_length check/);
    expect(() => precheck(z.number().check(z.gte(1)))).toThrow(/greater_than check/);
    expect(() => precheck(z.boolean())).toThrow(/boolean is not supported/);
    expect(() => precheck(z.string().check(z.regex(/a/y)))).toThrow(/regex check/);
  });
});
