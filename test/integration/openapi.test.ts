/**
 * The OpenAPI document as shipped (`tenant-messaging/openapi.json`, i.e. dist/openapi.json): valid
 * OpenAPI 3.1 for a maintained validator, its schemas valid JSON Schema 2020-12, every endpoint of
 * the table in it, open where the specification shows nothing, and every exchange captured from a
 * real Laravel implementation (sandbox/fixtures/laravel-golden.json, the copy of
 * ../shared/laravel-golden/golden.json) conforming to it: the request to its parameters and body,
 * the answer to the response the document gives for its status.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/endpoints.js';
import { root } from '../helpers/npm.js';
import { type Json, loadDocument, resolve, routeOf, schemaChecker } from '../helpers/openapi.js';

interface Exchange {
  readonly note: string;
  readonly request: { method: string; url: string; accept: string | null; body: Json };
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly json?: Json;
}

const golden = JSON.parse(readFileSync(new URL('./sandbox/fixtures/laravel-golden.json', import.meta.url), 'utf8')) as {
  count: number;
  results: Record<string, Exchange>;
};

/** Requests that broke a rule the document states (the server refused each): the document must refuse them too. */
const REFUSED_REQUESTS: Readonly<Record<string, string>> = {
  send_missing_to_phone: 'to_phone is required',
  send_bad_type: "a JSON body's type is text",
  send_empty_body: 'to_phone, type and a sending number are required',
  send_to_phone_not_string: 'to_phone is a string',
  send_sender_id_not_integer: 'sender_number_id is an integer',
  send_text_no_content: 'a text needs content',
  send_malformed_json: 'the body is not JSON',
  send_422_no_accept: 'to_phone is required',
  send_media_missing_file: 'a media send needs its media part',
  get_log_non_numeric: 'messageLog is an integer >= 1',
};

/** Routes the API does not have: the document has no operation for them either. */
const NO_OPERATION: Readonly<Record<string, number>> = { unknown_route: 404, method_not_allowed: 405 };

/**
 * Answers that are not JSON: the request left out `Accept: application/json`, which the spec's
 * conventions ask for, and Laravel answered with HTML. They fall to the open `default` response;
 * the document describes no HTML body.
 */
const NOT_JSON: Readonly<Record<string, number>> = { me_no_key_no_accept: 500, send_422_no_accept: 302 };

type Obj = { [key: string]: Json };
let doc: Obj;
let check: (schema: Json, value: unknown) => string[];

beforeAll(async () => {
  doc = await loadDocument();
  check = schemaChecker(doc);
}, 180_000);

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for @seriousme/openapi-schema-validator (the official OAS 3.1 schema)', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc['openapi']).toMatch(/^3\.1\./);
  });

  it('has schemas that Ajv compiles as strict JSON Schema 2020-12', () => {
    const schemas: Json[] = [];
    const collect = (node: Json, key?: string): void => {
      if (key === 'schema') schemas.push(node);
      else if (node !== null && typeof node === 'object')
        for (const [k, v] of Object.entries(node)) collect(v, Array.isArray(node) ? undefined : k);
    };
    collect(doc['paths'] as Json);
    collect((doc['components'] as Obj)['responses'] as Json);
    for (const schema of [...schemas, ...Object.values((doc['components'] as Obj)['schemas'] as Obj)])
      expect(() => check(schema, null)).not.toThrow();
    expect(schemas.length).toBeGreaterThan(10);
  });

  it('has every endpoint of the table: method, path, summary, scope, security and the X-Api-Key scheme', () => {
    expect((doc['components'] as Obj)['securitySchemes']).toEqual({
      ApiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }),
    });
    for (const [name, row] of Object.entries(ENDPOINTS)) {
      const operation = (doc['paths'] as Obj)[row.path] as Obj | undefined;
      expect(operation?.[row.method.toLowerCase()], name).toMatchObject({
        operationId: name,
        summary: row.summary,
        'x-scope': row.scope,
        security: [{ ApiKey: row.scope === null ? [] : [row.scope] }],
      });
    }
    const count = Object.values(doc['paths'] as Obj).flatMap((item) => Object.keys(item as Obj)).length;
    expect(count).toBe(Object.keys(ENDPOINTS).length);
  });

  it('describes what the spec shows: messageLog, the lookup query, the send bodies, 200 { data } and { message } errors', () => {
    const get = resolve(doc, ((doc['paths'] as Obj)['/messages/{messageLog}'] as Obj)['get']);
    expect(get['parameters']).toEqual([
      expect.objectContaining({
        name: 'messageLog',
        in: 'path',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      }),
    ]);
    const responses = get['responses'] as Obj;
    expect(Object.keys(responses).sort()).toEqual(['200', '401', '403', '404', 'default']);
    const lookup = ((doc['paths'] as Obj)['/contacts/lookup'] as Obj)['get'] as Obj;
    expect((lookup['parameters'] as Obj[]).map((p) => `${p['in']}:${p['name']}`)).toEqual([
      'query:phone',
      'query:sender_phone',
    ]);
    const send = ((doc['paths'] as Obj)['/messages'] as Obj)['post'] as Obj;
    const content = (send['requestBody'] as Obj)['content'] as Obj;
    expect(Object.keys(content)).toEqual(['application/json', 'multipart/form-data']);
    const media = resolve(doc, (content['multipart/form-data'] as Obj)['schema']);
    expect((media['properties'] as Obj)['media']).toMatchObject({ contentMediaType: 'application/octet-stream' });
    const ok = { data: (golden.results['get_log']!.json as Obj)['data'] };
    const body = ((resolve(doc, responses['200'])['content'] as Obj)['application/json'] as Obj)['schema'] as Json;
    expect(check(body, ok)).toEqual([]);
    expect(check(body, ok['data'])).not.toEqual([]);
    for (const status of ['401', '403', '404']) {
      const schema = ((resolve(doc, responses[status])['content'] as Obj)['application/json'] as Obj)['schema'] as Json;
      expect(check(schema, { message: 'x' }), status).toEqual([]);
      expect(check(schema, { error: 'x' }), status).not.toEqual([]);
    }
  });

  it('stays open where the spec shows nothing: the answers of /me, /subscription, /usage, /sender-numbers, /contacts/lookup, the list, and every other status', () => {
    const anything: Json[] = [{}, [], 'text', 0, null, { data: [{ id: 'x' }], meta: { total: 1 } }];
    const open = ['me', 'subscription', 'usage', 'listSenderNumbers', 'lookupContact', 'listMessages'] as const;
    for (const name of open) {
      const { method, path } = ENDPOINTS[name];
      const responses = (((doc['paths'] as Obj)[path] as Obj)[method.toLowerCase()] as Obj)['responses'] as Obj;
      for (const key of ['2XX', 'default']) {
        const response = resolve(doc, responses[key]);
        const schema = ((response['content'] as Obj)['application/json'] as Obj)['schema'] as Obj;
        expect(schema['description'], `${name} ${key}`).toMatch(/Not shown by the specification/);
        for (const value of anything) expect(check(schema, value), `${name} ${key}`).toEqual([]);
      }
    }
  });

  it('is as tolerant as the SDK: unknown MessageLog fields and values, and an empty request_payload as []', () => {
    const log = (golden.results['get_log']!.json as Obj)['data'] as Obj;
    const schema = { $ref: '#/components/schemas/MessageLog' };
    expect(check(schema, { ...log, delivery_status: 'failed', message_type: 'video', extra: { x: 1 } })).toEqual([]);
    expect(check(schema, { ...log, request_payload: [] })).toEqual([]);
    expect(check(schema, { ...log, request_payload: [1] })).not.toEqual([]);
    expect(check(schema, { ...log, id: '1' })).not.toEqual([]);
  });

  it('is what the generator makes from the current sources (dist/openapi.json is not stale)', async () => {
    const { openApiDocument } = await import('../../src/openapi/document.js');
    expect(JSON.parse(JSON.stringify(openApiDocument()))).toEqual(doc);
  });

  it('the generator refuses a Zod check that JSON Schema cannot express, instead of writing an unexplained {}', async () => {
    const { componentSchemas } = await import('../../src/openapi/zod-json-schema.js');
    const z = await import('../../src/schemas/zod.js');
    const custom = z.looseObject({ photo: z.custom<Blob>((value) => value instanceof Blob) });
    expect(() => componentSchemas([[custom, { id: 'Photo', description: 'x' }]], new Map())).toThrow(
      /no JSON Schema for properties\.photo/,
    );
  });

  it('stays out of the SDK: no module of src/ outside src/openapi imports it, and no entry of dist/ holds it', () => {
    const importers = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.startsWith('openapi'))
      .filter((file) => /from\s+['"][^'"]*\/openapi\//.test(readFileSync(join(root, 'src', file), 'utf8')));
    expect(importers).toEqual([]);
    const built = readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      /\.c?js$/.test(f),
    );
    const holders = built.filter((file) => readFileSync(join(root, 'dist', file), 'utf8').includes('openApiDocument'));
    expect(holders).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.exports['./openapi.json']).toBe('./dist/openapi.json');
  });
});

describe(`the ${golden.count} golden exchanges with a Laravel implementation conform to the document`, () => {
  it('are all checked', () => {
    expect(Object.keys(golden.results)).toHaveLength(golden.count);
    const hit = new Set(
      Object.values(golden.results)
        .filter((e) => e.status < 300)
        .map((e) => routeOf(doc, e.request.method, e.request.url)?.operation['operationId']),
    );
    expect([...hit].sort()).toEqual(Object.keys(ENDPOINTS).sort());
  });

  it.each(Object.entries(golden.results))('%s', (name, exchange) => {
    const { method, url, body } = exchange.request;
    const where = `${name} (${exchange.note}): ${method} ${url} -> ${exchange.status}`;
    const route = routeOf(doc, method, url);
    if (route === undefined) {
      expect(NO_OPERATION[name], `${where}: no operation of the document matches this request`).toBe(exchange.status);
      return;
    }
    expect(NO_OPERATION[name], `${where}: the document has an operation for a route the API lacks`).toBeUndefined();

    const problems = requestProblems(route.operation, route.params, url, body);
    if (REFUSED_REQUESTS[name] === undefined) expect(problems, `${where}: the request does not conform`).toEqual([]);
    else
      expect(problems, `${where}: the document accepts a request that breaks ${REFUSED_REQUESTS[name]}`).not.toEqual(
        [],
      );

    const responses = route.operation['responses'] as Obj;
    const key = [String(exchange.status), `${String(exchange.status)[0]}XX`, 'default'].find((k) => k in responses);
    expect(key, `${where}: the document lists no response for this status and has no default`).toBeDefined();
    const response = resolve(doc, responses[key ?? '']);
    if (exchange.json === undefined) {
      expect(
        [NOT_JSON[name], exchange.request.accept, key],
        `${where}: an answer that is not JSON (${exchange.headers['content-type']})`,
      ).toEqual([exchange.status, null, 'default']);
      return;
    }
    const media = (response['content'] as Obj | undefined)?.['application/json'] as Obj | undefined;
    expect(media, `${where}: response ${key} has no application/json body`).toBeDefined();
    expect(
      check(media?.['schema'] ?? {}, exchange.json),
      `${where}: the body does not conform to response ${key}`,
    ).toEqual([]);
  });
});

/** What is wrong with a request for `operation`: its path and query parameters, and its body. */
function requestProblems(operation: Obj, params: Record<string, string>, url: string, body: Json): string[] {
  const query = new URL(url, 'http://x').searchParams;
  const problems: string[] = [];
  for (const parameter of (operation['parameters'] ?? []) as Obj[]) {
    const name = String(parameter['name']);
    const raw = parameter['in'] === 'path' ? params[name] : (query.get(name) ?? undefined);
    if (raw === undefined) {
      if (parameter['required'] === true) problems.push(`${name} is missing`);
      continue;
    }
    // A path or query value is text: read it as the number it spells when it spells one.
    const value = /^-?\d+$/.test(raw) ? Number(raw) : raw;
    problems.push(...check(parameter['schema'] as Json, value).map((p) => `${name}: ${p}`));
  }
  const requestBody = operation['requestBody'] as Obj | undefined;
  if (requestBody === undefined) return problems;
  const content = requestBody['content'] as Obj;
  const multipart = (content['multipart/form-data'] as Obj | undefined)?.['schema'];
  const mediaTypes = ((resolve(doc, multipart)?.['properties'] as Obj | undefined)?.['type'] as Obj | undefined)?.[
    'enum'
  ] as Json[] | undefined;
  // The spec sends media types as multipart/form-data and text as JSON; the capture records the fields.
  const kind =
    body !== null && typeof body === 'object' && mediaTypes?.includes((body as Obj)['type'] ?? null)
      ? 'multipart/form-data'
      : 'application/json';
  return [...problems, ...check((content[kind] as Obj)['schema'] as Json, body).map((p) => `${kind} ${p}`)];
}
