import fc from 'fast-check';
import {
  APIError,
  AuthenticationError,
  ERROR_CODES,
  InternalServerError,
  MessagingClient,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  SendOutcomeUnknownError,
  UnprocessableEntityError,
} from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeService } from '../helpers/fake-service.js';
import { settle } from '../helpers/simulated-hour.cjs';

// A hostile or broken service may answer an error status with any JSON at all: every such body
// must still give the APIError subclass of its status, never a TypeError or RangeError. Against a
// fake service in process, on fake timers (a 429 pauses the client's rate gate for a while).

let client: MessagingClient;
let reply = { status: 500, text: '' };

beforeAll(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
  const service = fakeService(
    () => new Response(reply.text, { status: reply.status, headers: { 'content-type': 'application/json' } }),
  );
  client = new MessagingClient({
    baseUrl: 'https://api.example.test',
    apiKey: 'tm_test_key',
    maxRetries: 0,
    fetch: service.fetch,
  });
});
afterAll(() => {
  vi.useRealTimers();
});

/** What `call` rejected with (or its value), fake time advanced until it settled. */
const failureOf = async (call: Promise<unknown>): Promise<unknown> =>
  (
    await settle(
      call.catch((e: unknown) => e),
      (ms) => vi.advanceTimersByTimeAsync(ms),
      100,
    )
  ).value;

const SEND = { sender_phone: '+1', to_phone: '+2', type: 'text', content: 'x' } as const;

function classFor(status: number): typeof APIError {
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionDeniedError;
  if (status === 404) return NotFoundError;
  if (status === 422) return UnprocessableEntityError;
  if (status === 429) return RateLimitError;
  return status >= 500 ? InternalServerError : APIError;
}

/** JSON text of an object from its entries, so keys such as `__proto__` stay own keys of the parsed value. */
const objectText = (entries: readonly (readonly [string, string])[]) =>
  `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
const arrayText = (items: readonly string[]) => `[${items.join(',')}]`;
const nested = (depth: number, inner = '') => '['.repeat(depth) + inner + ']'.repeat(depth);

const key = fc.oneof(
  fc.string(),
  fc.constantFrom('__proto__', 'toString', 'valueOf', 'constructor', 'hasOwnProperty', 'message', 'errors', 'length'),
);
/** Values that break `String()`: no usable toString/valueOf, or nesting deeper than the call stack. */
const hostile = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      '{"toString":0}',
      '{"toString":0,"valueOf":0}',
      '{"toString":{},"valueOf":[]}',
      '{"__proto__":{"toString":0}}',
      '{"__proto__":[]}',
      '[{"toString":0}]',
      '{"length":1e999}',
    ),
    weight: 4,
  },
  { arbitrary: fc.integer({ min: 1, max: 64 }).map((depth) => nested(depth)), weight: 2 },
  // Deeper than String()'s recursion can go (a RangeError in the old mapping).
  {
    arbitrary: fc.constantFrom(nested(10_000), nested(10_000, '"deep"'), nested(10_000, '{"toString":0}')),
    weight: 1,
  },
);
const anyValue = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  hostile,
  fc.array(fc.tuple(key, hostile), { maxLength: 3 }).map(objectText),
);
const stringText = fc.string().map((s) => JSON.stringify(s));
const fieldValue = fc.oneof(
  { arbitrary: anyValue, weight: 1 },
  { arbitrary: fc.array(fc.oneof(stringText, anyValue), { maxLength: 4 }).map(arrayText), weight: 3 },
);
const errorsValue = fc.oneof(
  { arbitrary: anyValue, weight: 1 },
  { arbitrary: fc.array(fc.tuple(key, fieldValue), { maxLength: 5 }).map(objectText), weight: 3 },
);
/** Mostly the API's error shape, `{ message, errors }`, with hostile members and extra (or repeated) keys. */
const bodyText = fc.oneof(
  { arbitrary: anyValue, weight: 1 },
  {
    arbitrary: fc
      .tuple(
        fc.option(fc.oneof(stringText, anyValue), { nil: undefined }),
        fc.option(errorsValue, { nil: undefined }),
        fc.array(fc.tuple(key, anyValue), { maxLength: 3 }),
      )
      .map(([message, errors, extra]) =>
        objectText([
          ...(message === undefined ? [] : [['message', message] as const]),
          ...(errors === undefined ? [] : [['errors', errors] as const]),
          ...extra,
        ]),
      ),
    weight: 3,
  },
);
/** Any status 400-599, with 422 (the one that reads `errors`) and the named ones drawn often. */
const status = fc.oneof(
  { arbitrary: fc.constant(422), weight: 2 },
  { arbitrary: fc.constantFrom(401, 403, 404, 408, 429, 500, 503), weight: 1 },
  { arbitrary: fc.integer({ min: 400, max: 599 }), weight: 2 },
);

/** `value[name]` when value is a JSON object with that own key. */
function own(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, name)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

/** What `errors` should hold, computed another way: own keys (fromEntries defines `__proto__` as a key). */
function expectedErrors(body: unknown): Record<string, string[]> {
  const errors = own(body, 'errors');
  if (typeof errors !== 'object' || errors === null || Array.isArray(errors)) return {};
  return Object.fromEntries(
    Object.entries(errors)
      .map(([field, value]): [string, string[]] => [
        field,
        typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [],
      ])
      .filter(([, messages]) => messages.length > 0),
  );
}

function checkError(error: unknown, code: number, text: string): void {
  expect(error).toBeInstanceOf(classFor(code));
  const apiError = error as APIError;
  expect(apiError.status).toBe(code);
  expect(apiError.message.length).toBeGreaterThan(0);
  const body: unknown = JSON.parse(text);
  const message = own(body, 'message');
  // The service's words stay on serverMessage; the message is the SDK's, one line, naming the status.
  expect(apiError.serverMessage).toBe(typeof message === 'string' ? message : undefined);
  expect(apiError.message).toMatch(new RegExp(`\\bHTTP ${code}\\b`));
  expect(apiError.message).not.toMatch(/\p{Cc}/u);
  expect(ERROR_CODES).toContain(apiError.code);
  if (error instanceof UnprocessableEntityError) {
    expect(Object.getPrototypeOf(error.errors)).toBe(Object.prototype);
    expect(Object.keys(error.errors)).toEqual(Object.keys(expectedErrors(body)));
    // toEqual, not toStrictEqual: the strict check compares `.constructor`, which a field named `constructor` shadows.
    expect(error.errors).toEqual(expectedErrors(body));
    for (const messages of Object.values(error.errors)) {
      expect(Array.isArray(messages)).toBe(true);
      for (const m of messages) expect(typeof m).toBe('string');
    }
  }
}

const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

describe('any JSON error body gives the APIError subclass of its status', () => {
  it('messages.get: any status 400-599, any JSON shape and depth', async () => {
    await fc.assert(
      fc.asyncProperty(status, bodyText, async (code, text) => {
        reply = { status: code, text };
        const error = await failureOf(client.messages.get(1, { maxRetries: 0 }));
        checkError(error, code, text);
      }),
      { seed: 4242, numRuns: 300 },
    );
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  });

  it('messages.send: the same, through SendOutcomeUnknownError for 408 and 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(status, bodyText, async (code, text) => {
        reply = { status: code, text };
        const error = await failureOf(client.messages.send(SEND, { maxRetries: 0 }));
        if (code === 408 || code >= 500) {
          expect(error).toBeInstanceOf(SendOutcomeUnknownError);
          checkError((error as Error).cause, code, text);
        } else checkError(error, code, text);
      }),
      { seed: 2424, numRuns: 200 },
    );
  });
});

describe('UnprocessableEntityError.errors keeps only field -> string[]', () => {
  it('drops values String() cannot convert and keeps the strings of mixed arrays', async () => {
    reply = {
      status: 422,
      text: `{"message":"Bad.","errors":{"a":{"toString":0},"b":["ok",{"toString":0},1,null,"fine"],"c":${nested(10_000)},"d":"one","e":[]}}`,
    };
    const error = await failureOf(client.messages.send(SEND));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).serverMessage).toBe('Bad.');
    expect((error as UnprocessableEntityError).message).toBe(
      "The service rejected the request's fields (HTTP 422 Unprocessable Content): b (ok), d (one). Each field's reasons are on error.errors.",
    );
    expect((error as UnprocessableEntityError).errors).toStrictEqual({ b: ['ok', 'fine'], d: ['one'] });
  });

  it('an own __proto__ field stays a field and changes no prototype', async () => {
    reply = {
      status: 422,
      text: '{"__proto__":{"message":"inherited"},"errors":{"__proto__":["polluted"],"to_phone":["Required."]}}',
    };
    const error = (await failureOf(client.messages.send(SEND))) as UnprocessableEntityError;
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(Object.getPrototypeOf(error.errors)).toBe(Object.prototype);
    expect(Object.keys(error.errors)).toEqual(['__proto__', 'to_phone']);
    expect(Object.getOwnPropertyDescriptor(error.errors, '__proto__')?.value).toEqual(['polluted']);
    expect(error.errors['to_phone']).toEqual(['Required.']);
    expect(JSON.parse(JSON.stringify(error.errors))).toStrictEqual(
      JSON.parse('{"__proto__":["polluted"],"to_phone":["Required."]}'),
    );
    // The body's own __proto__ is data, not a prototype to inherit a message from.
    expect(error.serverMessage).toBeUndefined();
    expect(error.code).toBe('validation.rejected');
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  });
});
