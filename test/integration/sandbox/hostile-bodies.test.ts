/**
 * Whatever a client sends, the sandbox answers as the API does: a 4xx for what the API refuses
 * (Laravel's `{ message, errors }` 422 for a body it cannot use), the success it would give
 * otherwise, never a 5xx and never a stack on stderr. A non-SDK client reads a 5xx on a send as
 * "may have been sent". Arbitrary bytes, JSON values and mutated multipart bodies go to
 * POST /messages, and arbitrary query strings to the read routes, over the in-process fetch,
 * the node:http server and msw.
 */
import fc from 'fast-check';
import { setupServer } from 'msw/node';
import { createSandbox, type Sandbox, startSandbox } from 'tenant-messaging/sandbox';
import { sandboxHandlers } from 'tenant-messaging/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  applyEdits,
  contentType,
  encodeForm,
  jsonText,
  mutatedMultipart,
  queryString,
  sendObject,
} from '../../helpers/hostile-inputs.js';

const KEY = 'tm_test_acme_full';
const HEADERS = { accept: 'application/json', 'x-api-key': KEY };
type Send = (path: string, init?: RequestInit) => Promise<Response>;

/** What the process wrote to stderr (directly or through console) during the test. */
let stderr: string[] = [];
beforeEach(() => {
  stderr = [];
  const record = (...args: unknown[]) => {
    stderr.push(args.map(String).join(' '));
  };
  vi.spyOn(console, 'error').mockImplementation(record);
  vi.spyOn(console, 'warn').mockImplementation(record);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
    record(chunk);
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A sandbox whose quota never runs out, so that every 422 is about the request itself. */
function quiet<T extends Sandbox>(sandbox: T): T {
  sandbox.setMessageLimit('acme', Number.MAX_SAFE_INTEGER);
  return sandbox;
}

/** Asserts a 422 is Laravel's `{ message, errors: { field: [...] } }`, its message the first error. */
async function expectLaravel422(response: Response): Promise<void> {
  const body = (await response.json()) as { message?: unknown; errors?: Record<string, unknown> };
  expect(body).toEqual({ message: expect.any(String), errors: expect.any(Object) });
  const messages = Object.values(body.errors ?? {});
  expect(messages.length).toBeGreaterThan(0);
  for (const list of messages) expect(list).toEqual([expect.any(String), ...(list as unknown[]).slice(1)]);
  const first = (messages[0] as string[])[0] as string;
  expect((body.message as string).startsWith(first)).toBe(true);
}

/** POSTs `body` as `type` to /messages: a 201 or the API's 422, nothing else. */
async function postMessages(send: Send, body: Uint8Array | string, type: string): Promise<Response> {
  const headers: Record<string, string> = { ...HEADERS };
  if (type !== '') headers['content-type'] = type;
  const payload = typeof body === 'string' ? body : new Uint8Array(body);
  const response = await send('/api/v1/messages', { method: 'POST', headers, body: payload });
  expect([201, 422]).toContain(response.status);
  if (response.status === 422) await expectLaravel422(response.clone());
  return response;
}

/** The property set every transport must hold; `runs` scales it to the transport's cost. */
async function bodiesNeverFail(send: Send, runs: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), contentType, async (bytes, type) => {
      await postMessages(send, bytes, type);
    }),
    { numRuns: runs },
  );
  await fc.assert(
    fc.asyncProperty(
      jsonText,
      fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), { maxLength: 2 }),
      async (text, flips) => {
        const bytes = new TextEncoder().encode(text);
        for (const { at, byte } of flips) if (bytes.length > 0) bytes[at % bytes.length] = byte;
        await postMessages(send, bytes, 'application/json');
      },
    ),
    { numRuns: runs },
  );
  await fc.assert(
    fc.asyncProperty(mutatedMultipart, async ({ entries, edits, relabel }) => {
      const { bytes, contentType: type } = await encodeForm(entries);
      await postMessages(send, applyEdits(bytes, edits), relabel(type));
    }),
    { numRuns: runs },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(fc.string(), fc.uint8Array({ maxLength: 12 })), { maxLength: 6 }),
      async (pairs) => {
        const hex = (b: Uint8Array) => [...b].map((x) => `%${x.toString(16).padStart(2, '0')}`).join('');
        const form = pairs.map(([name, value]) => `${encodeURIComponent(name)}=${hex(value)}`).join('&');
        await postMessages(send, form, 'application/x-www-form-urlencoded');
      },
    ),
    { numRuns: runs },
  );
  const reads: [string, readonly string[], readonly number[]][] = [
    ['/api/v1/contacts/lookup', ['phone', 'sender_phone'], [200, 422]],
    ['/api/v1/messages', ['page', 'per_page'], [200]],
    ['/api/v1/me', ['x'], [200]],
  ];
  for (const [path, names, statuses] of reads) {
    await fc.assert(
      fc.asyncProperty(queryString(names), async (query) => {
        const response = await send(`${path}?${query}`, { headers: HEADERS });
        expect(statuses).toContain(response.status);
        await response.arrayBuffer();
      }),
      { numRuns: runs },
    );
  }
  await fc.assert(
    fc.asyncProperty(queryString(['1']), async (segment) => {
      const response = await send(`/api/v1/messages/${segment}`, { headers: HEADERS });
      expect([200, 404]).toContain(response.status);
      await response.arrayBuffer();
    }),
    { numRuns: runs },
  );
  expect(stderr).toEqual([]);
}

describe('hostile bodies and queries', () => {
  it('the in-process fetch answers every one with a 4xx or the success, and writes nothing to stderr', async () => {
    const sandbox = quiet(createSandbox());
    const base = sandbox.tenants['acme']?.baseUrl;
    await bodiesNeverFail((path, init) => sandbox.fetch(`${base}${path}`, init), 150);
  });

  it('the node:http server does the same, with no stack on stderr', async () => {
    const sandbox = quiet(await startSandbox());
    try {
      const base = sandbox.tenants['acme']?.baseUrl;
      await bodiesNeverFail((path, init) => fetch(`${base}${path}`, init), 25);
    } finally {
      await sandbox.close();
    }
  });

  it('msw, which shares the route code, does the same', async () => {
    const sandbox = quiet(createSandbox());
    const server = setupServer(...sandboxHandlers(sandbox));
    server.listen({ onUnhandledFrame: 'error' });
    try {
      const base = sandbox.tenants['acme']?.baseUrl;
      await bodiesNeverFail((path, init) => fetch(`${base}${path}`, init), 15);
    } finally {
      server.close();
    }
  });
});

describe('what a JSON send is answered', () => {
  const sandbox = quiet(createSandbox());
  const send: Send = (path, init) => sandbox.fetch(`${sandbox.tenants['acme']?.baseUrl}${path}`, init);
  const TEXT_FIELDS = ['sender_phone', 'sender_number_id', 'to_phone', 'type', 'content'] as const;
  const NO_FIELDS = {
    sender_phone: ['The sender phone field is required when sender number id is not present.'],
    sender_number_id: ['The sender number id field is required when sender phone is not present.'],
    to_phone: ['The to phone field is required.'],
    type: ['The type field is required.'],
  };

  /** True when every string in `value`, keys included, is well-formed UTF-16 (PHP's json_decode needs it). */
  function wellFormed(value: unknown): boolean {
    const ok = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
    if (typeof value === 'string') return ok(value);
    if (Array.isArray(value)) return value.every(wellFormed);
    if (typeof value === 'object' && value !== null) {
      return Object.entries(value).every(([k, v]) => ok(k) && wellFormed(v));
    }
    return true;
  }

  it('a lone surrogate anywhere makes the body unreadable (as PHP decodes JSON); a NUL in a field is refused on that field; a 201 stores the text as sent', async () => {
    await fc.assert(
      fc.asyncProperty(sendObject, async (object) => {
        const response = await postMessages(send, JSON.stringify(object), 'application/json');
        const body = await response.json();
        if (!wellFormed(object)) {
          expect(response.status).toBe(422);
          expect(body.errors).toEqual(NO_FIELDS);
          return;
        }
        for (const field of TEXT_FIELDS) {
          const value = object[field];
          if (typeof value === 'string' && value.includes('\0')) {
            expect(body.errors?.[field]).toEqual([
              `The ${field.replaceAll('_', ' ')} field must not contain a NUL character.`,
            ]);
          }
        }
        if (response.status === 201) {
          expect(body.data.content).toBe(object['content']);
          expect(body.data.request_payload.to_phone).toBe(object['to_phone']);
        }
      }),
      { numRuns: 400 },
    );
    expect(stderr).toEqual([]);
  });
});
