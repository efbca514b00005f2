/**
 * A differential test: the 49 exchanges captured from a real Laravel application that implements
 * the specification (test/integration/sandbox/fixtures/laravel-golden.json and .md, copies of
 * /work/shared/laravel-golden; the README says how it was captured) are replayed, in order,
 * against the in-process sandbox, and the answers compared: status, the headers that matter, and
 * the body's shape (same keys, recursively, same JSON types), with the exact text of every message
 * the framework itself writes.
 *
 * The captures come from Laravel 8. Where Laravel 12 answers differently, the sandbox follows 12
 * and this test translates the capture (see `laravel12`): 422 rule texts gained "field" and the
 * 422 `message` became the first error plus "(and N more errors)"; a routing 404 and a 405 name the
 * route. Where the sandbox deliberately differs from this particular application, `DELIBERATE`
 * says why and narrows the comparison.
 */
import { readFileSync } from 'node:fs';
import { createSandbox, type KeyRole } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { PNG } from '../../helpers/png.js';

interface Exchange {
  readonly note: string;
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly key: string | null;
    readonly accept: string | null;
    readonly body: Record<string, unknown> | string | null;
  };
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly json: unknown;
  readonly raw: string;
  readonly prettyPrinted: boolean;
}

const golden = JSON.parse(
  readFileSync(new URL('../../integration/sandbox/fixtures/laravel-golden.json', import.meta.url), 'utf8'),
) as {
  results: Record<string, Exchange>;
};

/** The application's own choices where the specification shows nothing: not the framework's. */
const APP_SHAPES = new Set(['me', 'subscription', 'sender_numbers', 'usage', 'lookup', 'lookup_unreachable']);

/** Where the sandbox deliberately differs from the captured application, and what is still compared. */
const DELIBERATE: Readonly<Record<string, { why: string; fields: 'keys-of-golden' | 'same-keys' }>> = {
  lookup_missing_phone: {
    // The SDK's `contacts.lookup` always sends sender_phone, so no SDK user can notice.
    why: 'the sandbox also requires sender_phone (this application treats it as optional)',
    fields: 'keys-of-golden',
  },
  send_to_phone_too_long: {
    why: 'the sandbox checks the phone format (+ and 6 to 15 digits) where this application checks max:32',
    fields: 'same-keys',
  },
};

/** The captured tenants, numbers and names, as sandbox seeds: globex's only number is id 3. */
const clockStart = Date.UTC(2026, 10, 22, 23, 37, 5);
let clock = clockStart;
const sandbox = createSandbox({
  now: () => clock,
  rateLimit: { perMinute: 60 },
  tenants: [
    {
      slug: 'acme',
      name: 'Acme Corp',
      senderNumbers: [
        { phone: '+15550000001', displayName: 'Main line' },
        { phone: '+15550000002', displayName: 'Support', status: 'pending_account_verification' },
      ],
    },
    { slug: 'globex', name: 'Globex Inc', senderNumbers: [{ phone: '+15550000003', displayName: 'Globex line' }] },
  ],
});

/** Captured keys are named by role (`tmk_acme_nousage_…`): the sandbox key of that tenant and role. */
const ROLES: Readonly<Record<string, KeyRole>> = {
  full: 'full',
  nosend: 'noSend',
  noread: 'noRead',
  nolookup: 'noLookup',
  nousage: 'noUsage',
  expired: 'expired',
};
function keyFor(captured: string): string {
  const [, tenant = '', role = ''] = /^tmk_([a-z]+)_([a-z]+)_/.exec(captured) ?? [];
  const mapped = ROLES[role];
  return mapped ? (sandbox.tenants[tenant]?.keys[mapped] ?? '') : `tm_test_${tenant}_${role}_unknown`;
}

/** The captured request, replayed: media types go as multipart, a string body as raw JSON. */
function replay({ method, url, key, accept, body }: Exchange['request']): Promise<Response> {
  const headers = new Headers();
  if (accept !== null) headers.set('accept', accept);
  if (key !== null) headers.set('x-api-key', keyFor(key));
  let payload: BodyInit | undefined;
  if (typeof body === 'string') {
    headers.set('content-type', 'application/json');
    payload = body;
  } else if (body !== null && ['image', 'voice', 'document'].includes(String(body['type']))) {
    const form = new FormData();
    for (const [name, value] of Object.entries(body)) {
      const file = /^<file (\S+), (\d+) bytes, (\S+)>$/.exec(String(value));
      if (!file) form.append(name, String(value));
      else {
        const bytes = new Uint8Array(Number(file[2]));
        bytes.set(PNG.subarray(0, bytes.length));
        form.append(name, new File([bytes], file[1] ?? '', { type: file[3] ?? '' }));
      }
    }
    payload = form;
  } else if (body !== null) {
    headers.set('content-type', 'application/json');
    payload = JSON.stringify(body);
  }
  return sandbox.handle(new Request(`${sandbox.origin}${url}`, { method, headers, ...(payload && { body: payload }) }));
}

/** Laravel 8 rule texts as Laravel 10+ words them: "The to phone must ..." -> "The to phone field must ...". */
function rule12(text: string): string {
  return text.replace(/^The (.+?) (must|may) /, (whole, attribute: string, verb: string) =>
    attribute.endsWith(' field') ? whole : `The ${attribute} field ${verb} `,
  );
}

/** The capture's body as Laravel 12 would send it (see the file's comment). */
function laravel12(exchange: Exchange): unknown {
  const body = structuredClone(exchange.json) as Record<string, unknown> | null;
  if (body === null || typeof body !== 'object') return body;
  const path = exchange.request.url.split('?')[0]?.replace(/^\//, '');
  if (exchange.status === 422 && body['errors']) {
    const errors = Object.fromEntries(
      Object.entries(body['errors'] as Record<string, string[]>).map(([field, texts]) => [field, texts.map(rule12)]),
    );
    const all = Object.values(errors).flat();
    const more = all.length - 1;
    body['errors'] = errors;
    body['message'] = more > 0 ? `${all[0]} (and ${more} more ${more === 1 ? 'error' : 'errors'})` : all[0];
  } else if (exchange.status === 404 && body['message'] === '') {
    body['message'] = `The route ${path} could not be found.`;
  } else if (exchange.status === 405) {
    body['message'] = String(body['message']).replace('for this route', `for route ${path}`);
  }
  return body;
}

/** The JSON type of a value. */
function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** Every difference of shape between `want` and `got`: keys (recursively), JSON types, array lengths. */
function shapeDiff(want: unknown, got: unknown, path = '$'): string[] {
  if (typeOf(want) !== typeOf(got)) return [`${path}: ${typeOf(want)} in Laravel, ${typeOf(got)} in the sandbox`];
  if (Array.isArray(want) && Array.isArray(got)) {
    if (want.length !== got.length) return [`${path}: ${want.length} items in Laravel, ${got.length} in the sandbox`];
    return want.flatMap((item, i) => shapeDiff(item, got[i], `${path}[${i}]`));
  }
  if (typeOf(want) !== 'object') return [];
  const w = want as Record<string, unknown>;
  const g = got as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(w), ...Object.keys(g)])].sort();
  return keys.flatMap((key) =>
    !(key in g)
      ? [`${path}.${key}: missing in the sandbox`]
      : !(key in w)
        ? [`${path}.${key}: only in the sandbox`]
        : shapeDiff(w[key], g[key], `${path}.${key}`),
  );
}

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining'] as const;

/** Per sandbox key, requests the throttle let through so far: to replay the capture's unseen requests. */
const hits = new Map<string, number>();

/** State the capture changed between exchanges, outside the API. */
const BEFORE: Readonly<Record<string, () => Promise<void>>> = {
  get_log_delivered: async () => sandbox.setDeliveryStatus('acme', 1, 'delivered'),
  get_log_orphaned: async () => sandbox.deleteUnderlyingMessage('acme', 3),
  list_page_1: async () => {
    // Sixteen more logs (ids 4 to 19), sent with a key that no later exchange uses.
    for (let i = 1; i <= 16; i++) {
      const res = await replay({
        method: 'POST',
        url: '/t/acme/api/v1/messages',
        key: 'tmk_acme_nousage_…',
        accept: 'application/json',
        body: { sender_phone: '+15550000001', to_phone: `+1555123${1000 + i - 1}`, type: 'text', content: `bulk ${i}` },
      });
      expect(res.status).toBe(201);
    }
  },
};

describe('the sandbox against a real Laravel application (golden captures)', () => {
  it('has the 49 exchanges', () => {
    expect(Object.keys(golden.results)).toHaveLength(49);
  });

  for (const [name, exchange] of Object.entries(golden.results)) {
    it(`${name}: ${exchange.note}`, async () => {
      clock += 50;
      await BEFORE[name]?.();
      const key = exchange.request.key === null ? '' : keyFor(exchange.request.key);
      const remaining = exchange.headers['x-ratelimit-remaining'];
      if (remaining !== undefined && exchange.status !== 429) {
        // The capture sent requests it did not record (the 58 before `throttle_60th`): send them too.
        const before = 60 - Number(remaining) - 1;
        while ((hits.get(key) ?? 0) < before) {
          const me = exchange.request.url.replace(/\/api\/v1\/.*$/, '/api/v1/me');
          await replay({ ...exchange.request, method: 'GET', url: me, body: null });
          hits.set(key, (hits.get(key) ?? 0) + 1);
        }
      }

      const res = await replay(exchange.request);
      const raw = await res.text();
      if (res.headers.has('x-ratelimit-remaining') && res.status !== 429) hits.set(key, (hits.get(key) ?? 0) + 1);

      expect(res.status).toBe(exchange.status);
      const family = (type: string | null | undefined) => type?.split(';')[0]?.trim().toLowerCase();
      expect(family(res.headers.get('content-type'))).toBe(family(exchange.headers['content-type']));
      for (const header of RATE_HEADERS) expect(res.headers.get(header)).toBe(exchange.headers[header] ?? null);
      for (const header of ['retry-after', 'x-ratelimit-reset']) {
        expect(res.headers.has(header), header).toBe(header in exchange.headers);
      }
      expect(res.headers.get('allow')).toBe(exchange.headers['allow'] ?? null);
      expect(res.headers.get('location')).toBe(
        exchange.headers['location']?.replace('{origin}', sandbox.origin) ?? null,
      );

      if (exchange.json === null) {
        // An HTML page (Laravel's error page, or Symfony's redirect page).
        expect(raw).toMatch(/^<!DOCTYPE html>/i);
        return;
      }
      const body = JSON.parse(raw) as Record<string, unknown>;
      // HttpExceptions (403, 404, 405, 429) are pretty-printed; 401, 422 and resources are compact.
      expect(raw.startsWith('{\n'), 'pretty-printed').toBe(exchange.prettyPrinted);
      if (APP_SHAPES.has(name) || name === 'throttle_60th') {
        // The shape of /me, /subscription, /usage, /sender-numbers and /contacts/lookup is the
        // application's own choice (the specification shows none): only the envelope is compared.
        expect(typeOf(body['data'])).toBe(typeOf((exchange.json as Record<string, unknown>)['data']));
        return;
      }
      const want = laravel12(exchange) as Record<string, unknown>;
      const deliberate = DELIBERATE[name];
      if (deliberate) {
        const wantErrors = want['errors'] as Record<string, string[]>;
        const gotErrors = body['errors'] as Record<string, string[]>;
        if (deliberate.fields === 'same-keys') expect(Object.keys(gotErrors)).toEqual(Object.keys(wantErrors));
        else
          for (const field of Object.keys(wantErrors))
            expect(gotErrors[field], deliberate.why).toEqual(wantErrors[field]);
        return;
      }
      expect(shapeDiff(want, body)).toEqual([]);
      if ('message' in want) expect(body['message']).toBe(want['message']);
      if ('errors' in want) expect(body['errors']).toEqual(want['errors']);
      if (name === 'send_text') {
        // json_encode's defaults: `\/` and `\u00fc`, as Laravel's JsonResponse writes them.
        expect(raw).toContain('"content":"Hello \\/ \\u00fcn\\u00efcode"');
      }
    });
  }
});
