/**
 * fast-check arbitraries of hostile answers: statuses (1xx, 3xx, odd ones), duplicated and
 * oversized headers, lying framing, bodies of any shape and size, and bad timings.
 * `$OTHER` in a header or body stands for the origin the SDK must never reach, `$HUGE` for 64 KiB
 * of text (so that a counterexample prints short).
 */
import fc from 'fast-check';
import { messageLog } from '../../helpers/server.js';
import type { Answer } from './harness.js';

/** The log id every `get` and `waitForDelivery` of the fuzzer asks for. */
export const LOG_ID = 42;

const status = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(200, 201, 202, 204, 206, 299) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(100, 101, 103, 300, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 408, 418, 422),
  },
  { weight: 2, arbitrary: fc.constantFrom(429, 500, 502, 503, 504, 599) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 999 }) },
);

const junkStatusLine = fc.constantFrom(
  'HTTP/1.0 200 OK',
  'HTTP/2 200',
  'HTTP/1.1 2000 Too Many Digits',
  'HTTP/1.1 -1 Negative',
  'HTTP/1.1 20 Short',
  'ICY 200 OK',
  'HTTP/1.1 200',
  'HTTP/1.1 200 \u00ff\u00fe',
  'garbage',
  '',
);

/** Retry-After and X-RateLimit-Reset values: junk, past, beyond the cap, or at most 1 s (cases stay short). */
const waitValue = fc.constantFrom(
  '0',
  '0.2',
  '1',
  '-1',
  'NaN',
  '1e309',
  '99999999',
  '9999999999',
  'Wed, 21 Oct 2015 07:28:00 GMT',
  'Fri, 31 Dec 9999 23:59:59 GMT',
  '',
  ' 1 ',
  '0x10',
  'soon',
);

const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ' ')),
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-16',
    'text/html',
    'application/problem+json',
    '$OTHER/api/v1/me',
    '//evil.invalid/x',
    'gzip',
    'chunked',
    'close',
    'websocket',
    '\u0000\u0001',
  ),
  waitValue,
);

const header: fc.Arbitrary<readonly [string, string]> = fc.oneof(
  fc.tuple(fc.constantFrom('retry-after', 'x-ratelimit-reset'), waitValue),
  fc.tuple(fc.constantFrom('location', 'content-location', 'link'), fc.constant('$OTHER/api/v1/messages?page=2')),
  fc.tuple(
    fc.constantFrom(
      'content-type',
      'x-request-id',
      'set-cookie',
      'content-encoding',
      'transfer-encoding',
      'content-length',
      'connection',
      'upgrade',
      'keep-alive',
      'trailer',
      'x-junk',
    ),
    headerValue,
  ),
  fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), headerValue),
);

/** Headers: a few hostile ones, or very many, or one 64 KiB value. */
const headers = fc.oneof(
  { weight: 6, arbitrary: fc.array(header, { maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 50, max: 400 }).map((n) => Array.from({ length: n }, () => ['x-many', 'v'] as const)),
  },
  { weight: 1, arbitrary: fc.constant([['x-huge', '$HUGE'] as const]) },
  {
    weight: 1,
    arbitrary: fc.constant([
      ['content-type', 'application/json'],
      ['content-type', 'text/html'],
      ['retry-after', 'soon'],
      ['retry-after', '0'],
      ['x-ratelimit-reset', 'x'],
      ['x-ratelimit-reset', '1'],
    ] as const),
  },
);

const deliveryStatus = fc.constantFrom('sent', 'delivered', 'read', 'unknown', 'teleported');

/** A MessageLog that is valid, or nearly (another id, a float id, a string id). */
const log = fc.record({
  id: fc.constantFrom(LOG_ID, LOG_ID, LOG_ID, 43, 42.5, '42'),
  delivery_status: deliveryStatus,
});
const logs = fc.array(log, { maxLength: 3 }).map((items) => items.map((fields) => messageLog(fields)));

/** Valid and nearly valid answers of every endpoint's shape, so the success paths are fuzzed too. */
const plausible = fc.oneof(
  log.map((fields) => ({ data: messageLog(fields) })),
  logs.map((data) => ({ data })),
  fc.tuple(logs, fc.integer({ min: -1, max: 5 }), fc.integer({ min: -1, max: 5 })).map(([data, current, last]) => ({
    data,
    meta: { current_page: current, last_page: last, total: 99 },
    links: { next: '$OTHER/api/v1/messages?page=2' },
  })),
  logs.map((data) => ({ data, links: { next: '$OTHER/api/v1/messages?page=3' } })),
  logs.map((data) => ({ data, current_page: 1, last_page: 3, next_page_url: '$OTHER/api/v1/messages?page=2' })),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
  fc.array(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }), { maxLength: 3 }),
);

const strangeJson = fc.constantFrom(
  '{"__proto__":{"id":42,"polluted":true},"data":{"__proto__":{"delivery_status":"read"}}}',
  '{"toString":1,"valueOf":"x","constructor":{},"hasOwnProperty":null,"data":{"toString":"x"}}',
  '{"data":{"id":1e400,"sender_number_id":-0}}',
  '{"data":{"id":123456789012345678901234567890}}',
  '{"data":[1,2,3],"meta":{"current_page":1e308,"last_page":1e309}}',
  '{"data":{"id":42},"data":{"id":43}}',
  '{"message":{"toString":"x"}}',
  '{"message":"$HUGE"}',
  'null',
  '"a string"',
  '[]',
  '',
  '\ufeff{"data":{}}',
  '{"data": ',
);

/** Nesting `depth` deep, as arrays or objects, inside a `data` member or not. */
const deep = fc.record({
  kind: fc.constant('deep' as const),
  // JSON.parse of nesting this deep holds the loop for about a millisecond per 1,000 levels and the
  // SDK parses any body it is given (a known, unfixed finding): deeper only in a soak with FUZZ_DEEP=1.
  depth: fc.integer({ min: 1, max: process.env['FUZZ_DEEP'] ? 200_000 : 10_000 }),
  arrays: fc.boolean(),
  wrapped: fc.boolean(),
});

const body: fc.Arbitrary<Answer['body']> = fc.oneof(
  { weight: 6, arbitrary: plausible.map((value) => ({ kind: 'text' as const, text: JSON.stringify(value) })) },
  {
    weight: 2,
    arbitrary: fc
      .jsonValue({ maxDepth: 4 })
      .map((value) => ({ kind: 'text' as const, text: JSON.stringify(value) ?? '' })),
  },
  { weight: 2, arbitrary: strangeJson.map((text) => ({ kind: 'text' as const, text })) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((text) => ({ kind: 'text' as const, text })) },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({
      kind: 'bytes' as const,
      base64: Buffer.from([0xff, 0xfe, 0xc0, ...bytes]).toString('base64'),
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 20_000, max: 3_000_000 }))
      .map((size) => ({ kind: 'html' as const, size })),
  },
);

const timing: fc.Arbitrary<Answer['timing']> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: 'now' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('drip' as const),
      chunk: fc.integer({ min: 1, max: 4096 }),
      delayMs: fc.integer({ min: 1, max: 40 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('stall' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('reset' as const),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      rst: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'early' as const }) },
);

export const answer: fc.Arbitrary<Answer> = fc.record({
  informational: fc.oneof(
    { weight: 5, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom(100, 102, 103), { minLength: 1, maxLength: 3 }) },
  ),
  status: fc.oneof({ weight: 12, arbitrary: status }, { weight: 1, arbitrary: fc.constant(null) }),
  statusLine: fc.oneof({ weight: 15, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: junkStatusLine }),
  headers,
  body,
  framing: fc.oneof(
    { weight: 6, arbitrary: fc.constant('length' as const) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('shorter' as const, 'longer' as const, 'chunked' as const, 'none' as const),
    },
  ),
  timing,
  close: fc.boolean(),
});

/** The answers of one case, in order; the last one repeats for any further request. */
export const answers = fc.array(answer, { minLength: 1, maxLength: 4 });
