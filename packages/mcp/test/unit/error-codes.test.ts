/**
 * Every error code reaches a model and the person running the server with advice, written from
 * the code and its fields: no code lacks it, and neither the message nor the advice names the
 * SDK's code (an option, a property, a call) that a model cannot set.
 */
import { ERROR_CODES } from 'tenant-messaging';
import { describe, expect, it } from 'vitest';
import { errorOfEveryCode } from '../../../../test/helpers/error-samples.js';
import { explain } from '../../src/answers/hints.js';
import { errorResult } from '../../src/answers/results.js';

const SCOPES = new Set(['messages.send', 'messages.read', 'contacts.lookup', 'usage.read']);

/** What in `text` speaks to code: a camelCase name, a property read, a quoted name that is no scope. */
function codeWords(text: string): string[] {
  return [
    ...text.matchAll(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/g),
    ...text.matchAll(/\b(?:client|error|options)\.\w+/g),
    ...[...text.matchAll(/`([^`]+)`/g)].filter(([, quoted = '']) => !SCOPES.has(quoted)),
  ].map(([word]) => word);
}

describe('every error code, as the MCP server words it', () => {
  it('has advice, and neither its message nor its tool result speaks to code', async () => {
    const samples = await errorOfEveryCode();
    for (const code of ERROR_CODES) {
      const { message, advice } = explain(samples[code]);
      expect(advice?.trim(), code).toBeTruthy();
      expect(codeWords(`${message}\n${advice}`), `${code}: ${message} → ${advice}`).toEqual([]);
      const result = errorResult(samples[code]);
      expect(result.isError, code).toBe(true);
      expect(codeWords(result.content[0]?.text ?? ''), `${code}: ${result.content[0]?.text}`).toEqual([]);
    }
  });
});
