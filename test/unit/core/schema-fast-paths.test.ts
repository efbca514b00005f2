/**
 * The fast paths of schema checking (src/schemas/fast-path.ts) must never disagree with Zod:
 * - the compiled object parser borrowed from zod's core is a drop-in for zod/mini's interpreted
 *   one: same verdict, same output, same issues;
 * - the allocation-free precheck (src/schemas/precheck.ts) accepts only what Zod accepts, with
 *   the same value, and does accept the logs the service really sends;
 * - `messageLogSchema`, which opts into both, returns what plain Zod returns, whichever path ran;
 * - `isMessageLog`, the Zod-free check a cold start uses before the schemas load, accepts only
 *   what `messageLogSchema` accepts, with the same value, and accepts the logs the service sends.
 * This guards both against a zod release that changes how schemas are defined or parsed.
 * A schema that opts into `fastSchema` gets a property test here, as `messageLogSchema` has
 * (`sendMessageParamsSchema`'s: send-schema-fast-path.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compiledLooseObject, compiledStrictObject } from '../../../src/schemas/fast-path.js';
import { emptyPayloadAsObject, messageLogSchema, messageLogShape } from '../../../src/schemas/message-log.js';
import { isMessageLog } from '../../../src/schemas/message-log-check.js';
import { precheck } from '../../../src/schemas/precheck.js';
import '../../../src/schemas/validators.js'; // loads zod's English messages, as the SDK does
import * as z from '../../../src/schemas/zod.js';
import type { MessageLog } from '../../../src/types/message-log.js';
import { messageLog } from '../../helpers/fake-service.js';
import { fieldValue, holders, objectsLike, SEED, withOwnProto } from '../../helpers/schema-inputs.js';

/** Valid logs, broken ones, extra fields, own `__proto__` keys at both levels, odd holders. */
const logInputs = (() => {
  const payload = fieldValue(messageLog()['response_payload'], 20);
  const logs = fc.oneof(objectsLike(messageLog(), 60), objectsLike(messageLog()));
  const nearlyValid = objectsLike(messageLog(), 60);
  return fc.oneof(
    { weight: 4, arbitrary: logs },
    { weight: 2, arbitrary: nearlyValid.map((log) => ({ ...log, request_payload: [] })) },
    { weight: 1, arbitrary: fc.tuple(nearlyValid, fc.anything()).map(([log, proto]) => withOwnProto(log, proto)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(nearlyValid, payload, fc.anything())
        .map(([log, inner, proto]) => ({ ...log, response_payload: withOwnProto({ ...(inner as object) }, proto) })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(nearlyValid, fc.constantFrom(...holders)).map(([log, hold]) => hold(log)),
    },
    { weight: 1, arbitrary: fc.oneof(fc.anything(), fc.array(nearlyValid, { maxLength: 2 }), fc.constant(null)) },
  );
})();

/** `value` as JSON text, or undefined when JSON cannot hold it (a bigint, a cycle). */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
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
      { numRuns: 500, seed: SEED },
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
      { numRuns: 500, seed: SEED },
    );
    expect(compiled.safeParse({ ...valid, colour: 'red' }).error?.issues).toMatchObject([
      { code: 'unrecognized_keys', keys: ['colour'] },
    ]);
  });
});

describe('messageLogSchema', () => {
  /** The plain-Zod path: interpreted objects all the way down, then the same normalisation. */
  const plainZod = z.looseObject({
    ...messageLogShape,
    response_payload: z.looseObject(messageLogShape.response_payload.shape),
  });
  const viaPlainZod = (input: unknown) => {
    const result = plainZod.safeParse(input);
    return result.success ? { success: true as const, data: emptyPayloadAsObject(result.data as MessageLog) } : result;
  };

  it('returns what plain Zod returns, whichever path ran: verdict, value and issues', () => {
    let asIs = 0;
    fc.assert(
      fc.property(logInputs, (input) => {
        const fast = messageLogSchema.safeParse(input);
        const plain = viaPlainZod(input);
        expect(fast.success).toBe(plain.success);
        if (fast.success) {
          expect(fast.data).toStrictEqual(plain.data);
          if (fast.data === input) asIs++;
        } else {
          expect(fast.error.issues).toStrictEqual(plain.success ? [] : plain.error.issues);
        }
      }),
      { numRuns: 1500, seed: SEED },
    );
    // The property is only worth something if the generator reaches the fast path.
    expect(asIs).toBeGreaterThan(100);
  });

  it('isMessageLog (no Zod) accepts only what the schema accepts, with the same value, and every valid log JSON gives', () => {
    let accepted = 0;
    fc.assert(
      fc.property(logInputs, (input) => {
        const parsed = messageLogSchema.safeParse(input);
        if (isMessageLog(input)) {
          accepted++;
          expect(parsed.success).toBe(true);
          expect(emptyPayloadAsObject(input)).toStrictEqual(parsed.success && parsed.data);
        }
        // What JSON.parse gives (the only input it meets in the SDK): valid means accepted, unless
        // the text has a "__proto__" key, which it leaves to Zod.
        const text = jsonText(input);
        if (text === undefined || text.includes('"__proto__"')) return;
        const json: unknown = JSON.parse(text);
        expect(isMessageLog(json)).toBe(messageLogSchema.safeParse(json).success);
      }),
      { numRuns: 1500, seed: SEED },
    );
    // The property is only worth something if the generator reaches the accepting side.
    expect(accepted).toBeGreaterThan(100);
  });

  it('accepts the logs the service sends on the fast path, returning them as given', () => {
    expect(messageLogSchema.prechecked).toBe(true);
    const logs = [
      messageLog(),
      messageLog({ delivery_status: 'read', sent_at: '2026-11-21T10:00:00.000000Z' }),
      messageLog({ recipient_user_id: null, conversation_id: null, message_id: null, content: null, sent_at: null }),
      messageLog({ delivery_status: 'queued_by_a_newer_api', message_type: 'sticker', added_later: [1] }),
      messageLog({ response_payload: { conversation_id: 1, message_id: 2, media_url: 'https://x/y.png', extra: 1 } }),
    ];
    for (const log of logs) {
      const parsed = messageLogSchema.safeParse(JSON.parse(JSON.stringify(log)));
      expect(parsed.success && parsed.data).toStrictEqual(log);
      const own = structuredClone(log);
      expect((messageLogSchema.safeParse(own) as { data: unknown }).data).toBe(own);
      expect(isMessageLog(JSON.parse(JSON.stringify(log))), 'isMessageLog').toBe(true);
    }
  });

  it('reads an empty PHP array as {}, without changing the input, and defers own __proto__ keys', () => {
    const phpEmpty = messageLog({ request_payload: [] });
    const parsed = messageLogSchema.safeParse(phpEmpty);
    expect(parsed.success && parsed.data.request_payload).toStrictEqual({});
    expect(phpEmpty['request_payload']).toStrictEqual([]);

    // JSON.parse makes "__proto__" an own key; Zod's copy leaves it out, and so does the schema.
    const withProto = JSON.parse(JSON.stringify(messageLog()).replace('{', '{"__proto__":{"polluted":true},'));
    expect(Object.hasOwn(withProto, '__proto__')).toBe(true);
    const parsedProto = messageLogSchema.safeParse(withProto);
    expect(parsedProto.success && Object.hasOwn(parsedProto.data, '__proto__')).toBe(false);
    expect(parsedProto.success && (parsedProto.data as unknown as Record<string, unknown>)['polluted']).toBe(undefined);
  });
});

describe('precheck', () => {
  const zodSchema = z.looseObject(messageLogShape);
  const isValidAsIs = precheck(compiledLooseObject(messageLogShape)) ?? (() => false);

  it('accepts only what Zod accepts, and Zod returns the same value', () => {
    let accepted = 0;
    fc.assert(
      fc.property(logInputs, (input) => {
        if (!isValidAsIs(input)) return;
        accepted++;
        const parsed = zodSchema.safeParse(input);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(input);
      }),
      { numRuns: 1000, seed: SEED },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it('derives no check, rather than throwing, from a construct it does not know', () => {
    const unknown = [
      z.strictObject({ a: z.string() }),
      z.object({ a: z.string() }),
      z.looseObject({ a: z.optional(z.string()) }),
      z.looseObject({ a: z.boolean() }),
      z.string().check(z.minLength(1)),
      z.number().check(z.gte(1)),
      z.boolean(),
      z.string().check(z.regex(/a/y)),
      z.email(),
      z.coerce.number(),
      z.nullable(z.enum(['a'])),
    ];
    for (const schema of unknown) expect(precheck(schema)).toBeUndefined();
  });
});
