/**
 * The parts of an OpenAPI 3.1 document this generator writes: only as much typing as keeps the
 * generator honest (the validator in test/integration/openapi.test.ts checks the document itself).
 */

/** A JSON Schema 2020-12 object, as `z.toJSONSchema` emits it. */
export type JsonSchema = { [keyword: string]: unknown };

/** A Response Object, or a reference to one of `components.responses`. */
export type Response = { description: string; content?: Record<string, { schema: JsonSchema }> } | { $ref: string };

/** A Parameter Object (path or query). */
export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required: boolean;
  readonly description: string;
  readonly schema: JsonSchema;
}

/** A Request Body Object. */
export interface RequestBody {
  readonly required: boolean;
  readonly description: string;
  readonly content: Record<string, { schema: JsonSchema; encoding?: Record<string, { contentType: string }> }>;
}

/** An Operation Object, with the scope as an `x-scope` extension (`null`: any active key). */
export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly 'x-scope': string | null;
  readonly security: Record<string, string[]>[];
  readonly parameters?: Parameter[];
  readonly requestBody?: RequestBody;
  readonly responses: Record<string, Response>;
}

/** The whole document. */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: Record<string, unknown>;
  readonly servers: Record<string, unknown>[];
  readonly security: Record<string, string[]>[];
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: {
    readonly securitySchemes: Record<string, Record<string, unknown>>;
    readonly schemas: Record<string, JsonSchema>;
    readonly responses: Record<string, Response>;
  };
}
