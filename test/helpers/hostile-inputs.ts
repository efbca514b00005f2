/**
 * fast-check arbitraries of what a client that is not the SDK may send the sandbox: strings with
 * NUL characters and lone surrogates, JSON of any shape, form bodies, and multipart bodies built
 * by the platform and then cut, spliced or relabelled. Shared by the hostile-body property tests.
 */
import fc from 'fast-check';

/** The fields of `POST /messages`, and a valid value of each. */
export const VALID = {
  sender_phone: '+15550001001',
  sender_number_id: 1,
  to_phone: '+15557654321',
  type: 'text',
  content: 'hello',
} as const;
export const FIELDS = ['sender_phone', 'sender_number_id', 'to_phone', 'type', 'content', 'media'] as const;

/** One code point of any kind, a NUL, or half of a surrogate pair: side by side two halves may pair. */
const unit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constant('\0') },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
);

/** Strings that are sometimes storable, sometimes not. */
export const hostileString = fc.string({ unit, maxLength: 12 });

/** A valid value spoiled by a NUL or a lone surrogate at a random place. */
export const spoiled = (value: string) =>
  fc
    .tuple(fc.nat({ max: value.length }), fc.constantFrom('\0', '\ud800', '\udfff', '\ud83d'))
    .map(([at, bad]) => value.slice(0, at) + bad + value.slice(at));

/** Any value a JSON field may hold, valid values included so that some sends get through. */
export const fieldValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>(...Object.values(VALID), 'image', 'document', '1', '', null) },
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean()) },
);

/** What happens to one field of a valid send: kept (most often), dropped, or replaced by anything. */
const fieldFate = <T>(valid: T) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant<unknown>(valid) },
    { weight: 1, arbitrary: fc.constant<unknown>(undefined) },
    { weight: 2, arbitrary: fieldValue },
  );

/** A valid text send (by phone or by id) with some of its fields dropped or replaced, and a few others. */
export const sendObject = fc
  .tuple(
    fc.boolean(),
    fc.record({
      sender: fieldFate('+15550001001'),
      to_phone: fieldFate(VALID.to_phone),
      type: fieldFate('text'),
      content: fieldFate(VALID.content),
      media: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fieldValue }),
    }),
    fc.oneof(
      { weight: 3, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.dictionary(hostileString, fieldValue, { maxKeys: 2 }) },
    ),
  )
  .map(([byId, { sender, ...rest }, extra]) => {
    const senderField = byId ? 'sender_number_id' : 'sender_phone';
    const value = byId && sender === '+15550001001' ? 1 : sender;
    const send: Record<string, unknown> = { ...extra, [senderField]: value, ...rest };
    for (const key of Object.keys(send)) if (send[key] === undefined) delete send[key];
    return send;
  });

/** JSON text of any value at all, or of a send object. */
export const jsonText = fc.oneof(
  sendObject.map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value)),
);

/** Edits of a byte string: cut, delete, insert, overwrite. */
const edit = fc.oneof(
  fc.record({ op: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
);
type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;

/** `bytes` after `edits`, each at a position taken modulo the current length. */
export function applyEdits(bytes: Uint8Array, edits: readonly Edit[]): Uint8Array {
  let out = bytes;
  for (const e of edits) {
    const at = out.length === 0 ? 0 : e.at % (out.length + 1);
    if (e.op === 'cut') out = out.slice(0, at);
    else if (e.op === 'delete') out = Uint8Array.from([...out.slice(0, at), ...out.slice(at + e.length)]);
    else if (e.op === 'insert') out = Uint8Array.from([...out.slice(0, at), ...e.bytes, ...out.slice(at)]);
    else if (at < out.length) {
      out = out.slice();
      out[at] = e.byte;
    }
  }
  return out;
}

/** A multipart/form-data body as the platform encodes it: its bytes and its content type. */
export async function encodeForm(entries: readonly (readonly [string, string | File])[]) {
  const form = new FormData();
  for (const [name, value] of entries) form.append(name, value);
  const request = new Request('http://encode.test/', { method: 'POST', body: form });
  return {
    bytes: new Uint8Array(await request.arrayBuffer()),
    contentType: request.headers.get('content-type') ?? '',
  };
}

const formValue = fc.oneof(
  fc.constantFrom(...Object.values(VALID).map(String), 'image', 'document'),
  hostileString,
  fc
    .tuple(
      fc.uint8Array({ maxLength: 64 }),
      hostileString,
      fc.constantFrom('', 'image/png', 'application/pdf', 'x/\u00ff'),
    )
    .map(([bytes, name, type]) => new File([bytes], name, { type })),
);

/** Multipart entries: a valid document send with fields dropped, replaced or added, or any entries at all. */
const formEntries = fc.oneof(
  fc
    .tuple(
      fc.record({
        sender_number_id: fieldFate('1'),
        to_phone: fieldFate(VALID.to_phone),
        type: fieldFate('document'),
        content: fieldFate('a caption'),
        media: fieldFate(new File(['%PDF-1.7'], 'a.pdf', { type: 'application/pdf' })),
      }),
      fc.array(fc.tuple(hostileString, formValue), { maxLength: 2 }),
    )
    .map(([fields, extra]) => [
      ...Object.entries(fields).flatMap(([name, value]) =>
        value === undefined
          ? []
          : [
              [
                name,
                value instanceof File ? value : typeof value === 'string' ? value : JSON.stringify(value),
              ] as const,
            ],
      ),
      ...extra,
    ]),
  fc.array(fc.tuple(fc.oneof(fc.constantFrom(...FIELDS), hostileString), formValue), { maxLength: 7 }),
);

/** How a multipart body's content type is spoiled: kept, its boundary changed, dropped or quoted. */
const contentTypeEdit = fc.oneof(
  { weight: 3, arbitrary: fc.constant((type: string) => type) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      (type: string) => type.replace(/boundary=.*/, 'boundary=other'),
      (type: string) => type.replace(/;\s*boundary=.*/, ''),
      (type: string) => type.replace(/boundary=(.*)/, 'boundary="$1"'),
      (type: string) => type.replace(/boundary=(.*)/, 'boundary='),
      (type: string) => type.toUpperCase(),
    ),
  },
);

/** A multipart body built by the platform, then cut, spliced or relabelled. */
export const mutatedMultipart = fc
  .tuple(formEntries, fc.oneof(fc.constant([]), fc.array(edit, { minLength: 1, maxLength: 3 })), contentTypeEdit)
  .map(([entries, edits, relabel]) => ({ entries, edits, relabel }));

/** A content type of every kind the route may see, odd ones included. */
export const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/vnd.api+json',
    'multipart/form-data',
    'multipart/form-data; boundary=xyz',
    'multipart/form-data; boundary=',
    'application/x-www-form-urlencoded',
    'text/plain',
    'application/octet-stream',
    '',
  ),
  fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ' ')),
);

/** A query string of any bytes, percent-encoded, or of hostile strings as values of `names`. */
export const queryString = (names: readonly string[]) =>
  fc.oneof(
    fc
      .uint8Array({ maxLength: 40 })
      .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...names), hostileString), fc.oneof(hostileString, fc.string())), {
        maxLength: 4,
      })
      .map((pairs) => pairs.map(([k, v]) => `${encodeLoose(k)}=${encodeLoose(v)}`).join('&')),
  );

/** `encodeURIComponent` that also takes a lone surrogate (as its UTF-8 would be if it had one: U+FFFD). */
function encodeLoose(text: string): string {
  return encodeURIComponent(
    text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );
}
