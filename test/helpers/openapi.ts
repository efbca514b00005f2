/**
 * Reading the built OpenAPI document as a user would (dist/openapi.json, the file behind
 * `tenant-messaging/openapi.json`), and checking values against it: which operation a captured
 * request hits, and whether a request or a body conforms, with JSON Schema 2020-12 (Ajv).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { npm, root } from './npm.js';

export type Json = { [key: string]: Json } | Json[] | string | number | boolean | null;
type Obj = { [key: string]: Json };

/** The document as shipped; built first (`npm run build`, as the package test does) if dist lacks it. */
export async function loadDocument(): Promise<Obj> {
  const file = join(root, 'dist', 'openapi.json');
  if (!existsSync(file)) await npm(['run', 'build'], root);
  return JSON.parse(readFileSync(file, 'utf8')) as Obj;
}

/** The operation a request reaches: its path template, Operation Object and raw path parameters. */
export interface Route {
  readonly path: string;
  readonly operation: Obj;
  readonly params: Record<string, string>;
}

/** Finds the operation of `method` and `url` (a path with the tenant prefix and a query), if any. */
export function routeOf(doc: Obj, method: string, url: string): Route | undefined {
  const prefix = String((doc['servers'] as Obj[])[0]?.['url']).replace('{base_url}', '');
  const path = new URL(url, 'http://x').pathname;
  const below = path.slice(path.indexOf(prefix) + prefix.length);
  for (const [template, item] of Object.entries(doc['paths'] as Obj)) {
    const names: string[] = [];
    const pattern = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const match = new RegExp(`^${pattern}$`).exec(below);
    const operation = (item as Obj)[method.toLowerCase()];
    if (match && operation) {
      const params = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? '')]));
      return { path: template, operation: operation as Obj, params };
    }
  }
  return undefined;
}

/** Follows a `#/components/...` reference of the document. */
export function resolve(doc: Obj, value: Json | undefined): Obj {
  const target = (value as Obj | undefined)?.['$ref'];
  if (typeof target !== 'string') return value as Obj;
  return target
    .slice(2)
    .split('/')
    .reduce<Json>((node, key) => (node as Obj)[key] as Json, doc) as Obj;
}

const BASE = 'https://tenant-messaging.invalid/openapi.json';

/**
 * A JSON Schema 2020-12 checker for the document's schemas: Ajv in strict mode (an unknown
 * keyword, format or a malformed schema throws at compile time), with its formats; the
 * document's components are its `$defs`, so `#/components/schemas/X` references resolve.
 */
export function schemaChecker(doc: Obj): (schema: Json, value: unknown) => string[] {
  // strictRequired off: `anyOf: [{ required: [a] }, { required: [b] }]` names properties declared
  // by the enclosing object, the ordinary 2020-12 way to say "one of a or b".
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormats.default(ajv);
  const rebase = (node: Json): Json =>
    typeof node === 'string' && node.startsWith('#/components/schemas/')
      ? `${BASE}#/$defs/${node.slice('#/components/schemas/'.length)}`
      : Array.isArray(node)
        ? node.map(rebase)
        : node !== null && typeof node === 'object'
          ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rebase(v)]))
          : node;
  ajv.addSchema({ $id: BASE, $defs: rebase((doc['components'] as Obj)['schemas'] as Json) as Obj });
  const compiled = new Map<string, ReturnType<Ajv2020['compile']>>();
  return (schema, value) => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile(rebase(schema) as Obj);
      compiled.set(key, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map(describe);
  };
}

const describe = (error: ErrorObject) =>
  `${error.instancePath || '(body)'} ${error.message} ${JSON.stringify(error.params)}`;
