/**
 * `sendMessageParamsSchema`'s fast path (src/schemas/fast-path.ts) never disagrees with Zod, as the
 * other schemas' do not (schema-fast-paths.test.ts): it is taken only for sends plain Zod accepts
 * unchanged, and a NUL or a lone surrogate is named by index and code point, never quoted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainTextSend, sendMessageParamsSchema, sendMessageParamsZod } from '../../../src/schemas/send.js';
import { isStorableText } from '../../../src/schemas/storable-text.js';
import '../../../src/schemas/validators.js'; // loads zod's English messages, as the SDK does
import { PathMedia } from '../../../src/types/media.js';
import { holders, objectsLike, SEED, withOwnProto } from '../../helpers/schema-inputs.js';

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
