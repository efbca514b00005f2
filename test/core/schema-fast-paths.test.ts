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
 * A schema that opts into `fastSchema` gets a property test here, as `messageLogSchema` has.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compiledLooseObject, compiledStrictObject } from '../../src/schemas/fast-path.js';
import { emptyPayloadAsObject, messageLogSchema, messageLogShape } from '../../src/schemas/message-log.js';
import { isMessageLog } from '../../src/schemas/message-log-check.js';
import { precheck } from '../../src/schemas/precheck.js';
import { isPlainTextSend, sendMessageParamsSchema, sendMessageParamsZod } from '../../src/schemas/send.js';
import { isStorableText } from '../../src/schemas/storable-text.js';
import '../../src/schemas/validators.js'; // loads zod's English messages, as the SDK does
import * as z from '../../src/schemas/zod.js';
import { PathMedia } from '../../src/types/media.js';
import type { MessageLog } from '../../src/types/message-log.js';
import { messageLog } from '../helpers/server.js';

const SEED = 20261121;

/** A field's value: usually a plausible one (`validWeight` in validWeight + 2), else anything. */
const fieldValue = (valid: unknown, validWeight: number) =>
  fc.oneof(
    { weight: validWeight, arbitrary: fc.constant(valid) },
    { weight: 1, arbitrary: fc.constantFrom(null, undefined, '', 0, -1, 1.5, [], [1], {}, 'x') },
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

/** An own "__proto__" key, as JSON.parse makes one (a plain assignment would set the prototype). */
function withOwnProto(value: Record<string, unknown>, proto: unknown): Record<string, unknown> {
  return Object.defineProperty({ ...value }, '__proto__', { value: proto, enumerable: true, writable: true });
}

/** The same fields held another way than JSON.parse holds them. */
const holders: ((value: Record<string, unknown>) => object)[] = [
  (value) => Object.create(value), // every field inherited
  (value) => Object.assign(Object.create(null), value), // no prototype
  (value) => Object.assign(new (class Log {})(), value), // a class instance
];

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

describe('sendMessageParamsSchema', () => {
  const textSend = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'Hello' };
  /**
   * One character of a send's strings: mostly any well-formed one (emoji, CJK, combining marks...),
   * sometimes a NUL or a lone surrogate (either half), which side by side may make a valid pair.
   */
  const textUnit = fc.oneof(
    { weight: 16, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.constantFrom('\0', '\uD83D', '\uDE00', '\uDBFF', '\uDC00', '\u{1F600}', ' ') },
    { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)) },
  );
  /** Strings that are sometimes storable, sometimes not (a NUL or a lone surrogate anywhere). */
  const texts = (minLength = 0) => fc.string({ unit: textUnit, minLength, maxLength: 12 });
  /** `value` with `bad` put in at any place (before, inside or after it). */
  const withInserted = (value: string, bad: string, at: number) => {
    const i = at % (value.length + 1);
    return value.slice(0, i) + bad + value.slice(i);
  };
  /** A valid text send with one of its strings spoiled by a NUL or a lone surrogate. */
  const spoiledSends = fc
    .tuple(
      fc.constantFrom('content', 'to_phone', 'sender_phone'),
      fc.constantFrom('\0', '\uD800', '\uDBFF', '\uDC00', '\uDFFF'),
      fc.nat(),
    )
    .map(([key, bad, at]) => ({ ...textSend, [key]: withInserted(textSend[key], bad, at) }));
  /** Media sends whose caption, file name, content type or path may hold a NUL or a lone surrogate. */
  const mediaSends = fc
    .tuple(texts(), texts(1), texts(), fc.boolean())
    .map(([content, filename, contentType, asPath]) => ({
      ...textSend,
      type: 'image',
      content,
      media: asPath
        ? new PathMedia(filename, 'photo.png', 'image/png')
        : { data: new Uint8Array(1), filename, contentType },
    }));
  /** Text sends, usually valid, with the sender given either way (or both, or neither), broken fields and extra keys. */
  const validSends = fc
    .tuple(texts(1), texts(1), fc.oneof(texts(), fc.integer({ min: -2 })))
    .map(([content, to_phone, sender]) => ({
      ...(typeof sender === 'string' ? { sender_phone: sender } : { sender_number_id: sender }),
      to_phone,
      type: 'text',
      content,
    }));
  const sendInputs = fc.oneof(
    { weight: 3, arbitrary: validSends },
    spoiledSends,
    mediaSends,
    objectsLike(textSend, 8),
    objectsLike({ sender_number_id: 1, to_phone: '+15550000002', type: 'text', content: 'Hi' }, 8),
    objectsLike({ ...textSend, sender_number_id: 2 }, 8),
    objectsLike({ ...textSend, content: ' ', to_phone: ' ', sender_phone: '\t' }, 8),
    objectsLike({ ...textSend, type: 'image', media: new Blob(['x']) }, 8),
    fc.tuple(objectsLike(textSend, 8), fc.anything()).map(([send, proto]) => withOwnProto(send, proto)),
    fc.tuple(objectsLike(textSend, 8), fc.constantFrom(...holders)).map(([send, hold]) => hold(send)),
    fc.anything(),
  );

  /** The send's strings that are sent or stored, as Zod reads them (own or inherited), media's included. */
  const sentStrings = (input: unknown): string[] => {
    if (typeof input !== 'object' || input === null) return [];
    const send = input as Record<string, unknown>;
    const media = (typeof send['media'] === 'object' && send['media']) || {};
    const { filename, contentType, path } = media as Record<string, unknown>;
    const strings = [send['content'], send['to_phone'], send['sender_phone'], filename, contentType, path];
    return strings.filter((value) => typeof value === 'string');
  };

  it('takes the fast path only for sends plain Zod accepts unchanged, and agrees with it on everything', () => {
    let asIs = 0;
    let asIsWithPairs = 0;
    let unstorable = 0;
    fc.assert(
      fc.property(sendInputs, (input) => {
        const fast = sendMessageParamsSchema.safeParse(input);
        const plain = sendMessageParamsZod.safeParse(input);
        expect(fast.success).toBe(plain.success);
        if (isPlainTextSend(input)) {
          asIs++;
          if (sentStrings(input).some((text) => /[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(text))) asIsWithPairs++;
          expect(fast.success && fast.data).toBe(input);
          expect(plain.data).toStrictEqual(input);
        } else if (fast.success) expect(fast.data).toStrictEqual(plain.data);
        else expect(fast.error.issues).toStrictEqual(plain.error?.issues);
        // A NUL or a lone surrogate in any string that is sent or stored is refused, on both paths.
        if (sentStrings(input).some((text) => !isStorableText(text))) {
          unstorable++;
          expect(fast.success).toBe(false);
        }
      }),
      { numRuns: 3000, seed: SEED },
    );
    // The property is only worth something if the generator reaches the fast path, with text
    // holding surrogate pairs (emoji...), as well as text that must be refused.
    expect(asIs).toBeGreaterThan(200);
    expect(asIsWithPairs).toBeGreaterThan(100);
    expect(unstorable).toBeGreaterThan(400);
  });

  it('names the first NUL or lone surrogate by index and code point, never quoting the text', () => {
    // An independent statement of the rule: a NUL, a high surrogate not followed by a low one, or
    // a low surrogate not preceded by a high one (no `u` flag: the pattern sees UTF-16 units).
    const firstBad = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    let refused = 0;
    fc.assert(
      fc.property(fc.constantFrom('content', 'to_phone', 'sender_phone'), texts(1), (key, text) => {
        const result = sendMessageParamsSchema.safeParse({ ...textSend, [key]: `+1${text}` });
        const bad = firstBad.exec(`+1${text}`);
        const issues = result.success ? [] : result.error.issues.filter((issue) => issue.path[0] === key);
        if (bad === null) {
          expect(issues.filter((issue) => issue.message.includes('U+'))).toEqual([]);
          return;
        }
        refused++;
        const unit = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
        const what = unit === '0000' ? 'a NUL character' : 'a lone UTF-16 surrogate';
        expect(issues.map((issue) => issue.message)).toContainEqual(
          expect.stringContaining(`contains ${what} (U+${unit}) at index ${bad.index}:`),
        );
        if (text.length > 3) for (const issue of issues) expect(issue.message).not.toContain(text);
      }),
      { numRuns: 1000, seed: SEED },
    );
    expect(refused).toBeGreaterThan(100);
  });
});
