import { readFileSync } from 'node:fs';
import * as z from 'zod';

const README = new URL('../../README.md', import.meta.url);

/** The JSON block that follows `marker` in the README. */
export function readmeJson(marker: string): unknown {
  const text = readFileSync(README, 'utf8');
  const block = new RegExp(`${marker}\\s*\`\`\`json\\n([\\s\\S]*?)\\n\`\`\``).exec(text)?.[1];
  if (block === undefined) throw new Error(`README has no json block after ${marker}`);
  return JSON.parse(block);
}

/**
 * The webhook event's JSON Schema exactly as the README documents it, as a validator: the tests
 * check every event a relay sends against it, so the document cannot drift from what is sent.
 */
export const eventSchema = z.fromJSONSchema(
  readmeJson('<!-- webhook-event-schema -->') as z.core.JSONSchema.JSONSchema,
);

/** Throws, naming the problem, unless `body` is an event the README's schema accepts. */
export function expectDocumentedEvent(body: string): void {
  const result = eventSchema.safeParse(JSON.parse(body));
  if (!result.success) throw new Error(`an event outside the README's schema: ${body}\n${result.error.message}`);
}
