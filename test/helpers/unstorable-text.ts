/**
 * The cases of the unstorable-text tests (unstorable-text, unstorable-text-stored): a send with a
 * NUL or a lone UTF-16 surrogate in one of its string fields, the same send without it, and how
 * its refusal must read; bad media paths, and well-formed text of every script.
 */
import fc from 'fast-check';
import { mediaFromPath, type SendMessageParams, ValidationError } from 'tenant-messaging';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { expect } from 'vitest';

const SENDER = '+15550001001';
export const SEED = 20261122;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

/** The string fields of a send that are sent or stored (`caption` is a media send's `content`). */
const FIELDS = ['content', 'to_phone', 'sender_phone', 'caption', 'filename', 'contentType'] as const;
type Field = (typeof FIELDS)[number];

/** The send with `value` in `field` and every other field valid. */
export function sendWith(field: Field, value: string): SendMessageParams {
  const base = { sender_phone: SENDER, to_phone: SANDBOX_PHONES.reads };
  if (field === 'content' || field === 'to_phone' || field === 'sender_phone') {
    return { ...base, type: 'text', content: 'Hello', [field]: value } as SendMessageParams;
  }
  const media = { data: PNG, filename: 'photo.png', contentType: 'image/png' };
  if (field === 'caption') return { ...base, type: 'image', content: value, media };
  return { ...base, type: 'image', content: 'Receipt', media: { ...media, [field]: value } };
}

/** The issue's path for a bad `field`: media problems are reported on `media`. */
const issuePath = (field: Field): string =>
  field === 'caption' ? 'content' : field === 'filename' || field === 'contentType' ? 'media' : field;

/** Plain JSON of a send as the SDK keeps it (media described by its name and type). */
export interface Kept {
  readonly content?: string;
  readonly to_phone?: string;
  readonly sender_phone?: string;
  readonly media?: { readonly filename?: string; readonly contentType?: string };
}

/** The params a queued job holds. */
export const paramsOf = (job: { data: unknown } | undefined): Kept =>
  (job?.data as { params?: Kept } | undefined)?.params ?? {};

/** Where `field`'s value is in a send as a job or the outbox stores it. */
export function keptValue(field: Field, kept: Kept): string | undefined {
  if (field === 'caption') return kept.content;
  if (field === 'filename' || field === 'contentType') return kept.media?.[field];
  return kept[field];
}

/** One character no datastore can hold: a NUL, or half of a surrogate pair with no other half. */
const unstorable = fc.oneof(
  fc.constant('\0'),
  fc.integer({ min: 0xd800, max: 0xdbff }).map((unit) => String.fromCharCode(unit)),
  fc.integer({ min: 0xdc00, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
);

/**
 * A field, and a string of any well-formed text (emoji, CJK, RTL, combining marks; printable ASCII
 * for a content type) with one unstorable character put in anywhere between two whole characters.
 * `control` is the same string without it, which every path accepts. A lone surrogate next to
 * whole characters stays lone: well-formed text never starts with a low half or ends with a high one.
 */
export const cases = fc
  .constantFrom(...FIELDS)
  .chain((field) => {
    const text = fc.string({ unit: field === 'contentType' ? 'grapheme-ascii' : 'grapheme', maxLength: 8 });
    return fc.record({ field: fc.constant(field), before: text, bad: unstorable, after: text });
  })
  .map(({ field, before, bad, after }) => caseOf(field, before, bad, after))
  // Blank phones, an empty text or file name are refused for their own reasons.
  .filter(({ field, control }) => field === 'contentType' || field === 'caption' || control.trim() !== '');

type Case = ReturnType<typeof caseOf>;

function caseOf(field: Field, before: string, bad: string, after: string) {
  return { field, value: before + bad + after, control: before + after, at: before.length, bad };
}

/**
 * Run first by every property (and counted in its runs, hence `numRuns: EVERY_FIELD.length + 60`):
 * each field with a NUL, a lone high and a lone low surrogate, at its start, middle and end.
 */
export const EVERY_FIELD: [Case][] = FIELDS.flatMap((field) => {
  const around =
    field === 'contentType'
      ? [
          ['', 'image/png'],
          ['image', '/png'],
          ['text/plain', ''],
        ]
      : [
          ['', 'Hello 😀'],
          ['ab 😀', '中'],
          ['שלום e\u0301', ''],
        ];
  return ['\0', '\uD83D', '\uDE00'].flatMap((bad) =>
    around.map(([before = '', after = '']): [Case] => [caseOf(field, before, bad, after)]),
  );
});

/** Checks the ValidationError of a bad case: the field, the code point, the index, no quoted text. */
export function expectRefusal(error: unknown, { field, value, at, bad }: Case) {
  expect(error).toBeInstanceOf(ValidationError);
  const issues = (error as ValidationError).issues.filter((issue) => issue.path === issuePath(field));
  expect(issues).toHaveLength(1);
  const message = (issues[0] as { message: string }).message;
  if (field === 'contentType') {
    expect(message).toContain('printable ASCII');
    return;
  }
  if (field === 'filename' && bad === '\0') {
    expect(message).toContain('control characters');
    return;
  }
  const code = bad.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  const what = bad === '\0' ? 'a NUL character' : 'a lone UTF-16 surrogate';
  expect(message).toContain(`contains ${what} (U+${code}) at index ${at}:`);
  expect(message).toMatch(bad === '\0' ? /remove it/ : /cut in the middle of an emoji/);
  if (value.length > 4) expect(message).not.toContain(value);
}

/** Image sends whose `mediaFromPath` path (stored by a queued send) cannot be stored. */
export const BAD_PATHS: readonly [string, SendMessageParams][] = ['/tmp/a\0b.png', '/tmp/\uDE00.png'].map((path) => [
  JSON.stringify(path),
  {
    sender_phone: SENDER,
    to_phone: SANDBOX_PHONES.reads,
    type: 'image',
    media: mediaFromPath(path, { filename: 'photo.png' }),
  },
]);

/** The issue of a bad `mediaFromPath` path. */
export const pathIssue = {
  path: 'media',
  message: expect.stringMatching(/^the path contains a (NUL character|lone UTF-16 surrogate)/),
};

/** Text of several scripts, all well-formed: it must come out exactly as it went in. */
const WORLD = 'Hi 👋🏽 👨‍👩‍👧 🇯🇵 你好 こんにちは مرحبا שלום नमस्ते e\u0301 n\u0303 Ω';
export const WORLD_CASES: readonly [Field, string][] = [
  ['content', WORLD],
  ['caption', WORLD],
  ['filename', 'קבלה-领收书-😀-é.png'],
];
