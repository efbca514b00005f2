import { readFileSync } from 'node:fs';
import * as z from 'zod';

/** The webhooks guide, which documents the event and its JSON Schema. */
const GUIDE = new URL('../../docs/webhooks.md', import.meta.url);

/** The JSON block that follows `marker` in docs/webhooks.md. */
export function guideJson(marker: string): unknown {
  const text = readFileSync(GUIDE, 'utf8');
  const block = new RegExp(`${marker}\\s*\`\`\`json\\n([\\s\\S]*?)\\n\`\`\``).exec(text)?.[1];
  if (block === undefined) throw new Error(`docs/webhooks.md has no json block after ${marker}`);
  return JSON.parse(block);
}

/**
 * The webhook event's JSON Schema exactly as docs/webhooks.md documents it, as a validator: the tests
 * check every event a relay sends against it, so the document cannot drift from what is sent.
 */
export const eventSchema = z.fromJSONSchema(guideJson('<!-- webhook-event-schema -->') as z.core.JSONSchema.JSONSchema);

/** Throws, naming the problem, unless `body` is an event the documented schema accepts. */
export function expectDocumentedEvent(body: string): void {
  const result = eventSchema.safeParse(JSON.parse(body));
  if (!result.success)
    throw new Error(`an event outside the schema in docs/webhooks.md: ${body}\n${result.error.message}`);
}
