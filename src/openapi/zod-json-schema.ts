/**
 * The SDK's Zod schemas as components of the OpenAPI document, through Zod 4's own JSON Schema
 * output (`z.toJSONSchema` of a registry: one schema per id, references between them as
 * `#/components/schemas/<id>`).
 */
import * as z from '../schemas/zod.js';
import type { JsonSchema } from './types.js';

/** A component's name and what it is. */
export interface ComponentMeta {
  readonly id: string;
  readonly description: string;
}

/**
 * JSON Schemas of `components`, by id. `replacements` gives, per Zod schema, the JSON Schema of a
 * check Zod cannot express (a `z.custom`); any other such check throws, so that a new custom check
 * in the SDK fails the build instead of becoming an unexplained `{}` in the document.
 */
export function componentSchemas(
  components: readonly (readonly [z.ZodMiniType, ComponentMeta])[],
  replacements: ReadonlyMap<unknown, JsonSchema>,
): Record<string, JsonSchema> {
  const registry = z.registry<ComponentMeta>();
  for (const [schema, meta] of components) registry.add(schema, meta);
  const { schemas } = z.toJSONSchema(registry, {
    // The wire is the schemas' input: what the SDK parses from a response, or checks before sending.
    io: 'input',
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: ({ zodSchema, path, message }) => {
      const replacement = replacements.get(zodSchema);
      if (replacement !== undefined) return replacement;
      throw new Error(
        `The OpenAPI document has no JSON Schema for ${path.join('.')} (${message}): add one to its replacements in src/openapi/`,
      );
    },
  });
  // `$schema` is the document's dialect already; an `$id` of `#/...` is no valid JSON Schema id.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema as JsonSchema]),
  );
}
