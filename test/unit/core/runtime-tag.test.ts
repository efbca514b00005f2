import { describe, expect, it } from 'vitest';
import { runtimeTag } from '../../../src/internal/runtime/runtime-tag.js';

describe('runtimeTag (the User-Agent names the runtime)', () => {
  const node = { process: { versions: { node: '24.11.0' } } };

  it('asks Bun, Deno and Workers before the Node version they all report', () => {
    expect(runtimeTag(node)).toBe('node/24.11.0');
    expect(runtimeTag({ ...node, Bun: { version: '1.4.5' } })).toBe('bun/1.4.5');
    expect(runtimeTag({ ...node, Deno: { version: { deno: '2.9.6' } } })).toBe('deno/2.9.6');
    expect(runtimeTag({ ...node, navigator: { userAgent: 'Cloudflare-Workers' } })).toBe('workerd');
  });

  it('never throws on odd globals, and says unknown when nothing is known', () => {
    expect(runtimeTag({})).toBe('node/unknown');
    expect(runtimeTag({ Bun: { version: 1 }, Deno: { version: {} }, navigator: { userAgent: 'Mozilla/5.0' } })).toBe(
      'node/unknown',
    );
  });
});
