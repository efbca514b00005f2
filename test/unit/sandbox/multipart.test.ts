/**
 * The sandbox's multipart parser reads every body the platform's `formData()` reads, to the same
 * entries (text decoded the same, files with the same name, type and bytes), and refuses without
 * throwing what the platform refuses; a text part that is not UTF-8 is kept as MalformedText.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMultipart } from '../../../src/sandbox/http/multipart.js';
import { MalformedText } from '../../../src/sandbox/http/text-rules.js';
import { applyEdits, encodeForm, mutatedMultipart } from '../../helpers/hostile-inputs.js';

/** A line break that is not CRLF. */
const BARE_BREAK = /\r(?!\n)|(?<!\r)\n/;
/** A UTF-16 surrogate without its other half: no character, so UTF-8 writes it as U+FFFD. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NODE_22 = process.versions.node.startsWith('22.');

/** Entries as comparable values: files by name, type and bytes; MalformedText by its lossy text. */
async function comparable(entries: Iterable<readonly [string, unknown]>) {
  const out: unknown[] = [];
  for (const [name, value] of entries) {
    if (value instanceof File) {
      out.push([name, { file: value.name, type: value.type, bytes: [...new Uint8Array(await value.arrayBuffer())] }]);
    } else out.push([name, value instanceof MalformedText ? value.lossy : value]);
  }
  return out;
}

/** The platform's reading of the body, or undefined where it throws. */
async function platform(bytes: Uint8Array, contentType: string) {
  try {
    return await new Response(new Uint8Array(bytes), { headers: { 'content-type': contentType } }).formData();
  } catch {
    return undefined;
  }
}

describe('parseMultipart', () => {
  it('agrees with the platform on every body the platform reads, and never throws', async () => {
    let read = 0;
    await fc.assert(
      fc.asyncProperty(mutatedMultipart, async ({ entries, edits, relabel }) => {
        const { bytes, contentType } = await encodeForm(entries);
        const body = applyEdits(bytes, edits);
        const type = relabel(contentType);
        const ours = parseMultipart(body, type);
        const theirs = await platform(body, type);
        if (theirs === undefined) return;
        // Node 22's undici reads part headers whose lines end in a bare LF or CR; RFC 7578 (and
        // Node 24's) asks for CRLF. The sandbox refuses them (a 422, never a 500): no agreement asked.
        if (ours === undefined && BARE_BREAK.test(Buffer.from(body).toString('latin1'))) return;
        // Node 22's undici also reads a part whose name held a lone surrogate otherwise than
        // Node 24's and the sandbox do (fast-check's seed 1063904245 found it, on Node 22 only).
        if (NODE_22 && entries.some(([name]) => LONE_SURROGATE.test(name))) return;
        read++;
        expect(ours).toBeDefined();
        expect(await comparable(ours ?? [])).toEqual(await comparable(theirs));
      }),
      { numRuns: 500 },
    );
    // Most of the bodies were read: the agreement is not vacuous. Node 22 is asked fewer (above).
    expect(read).toBeGreaterThan(NODE_22 ? 100 : 150);
  });

  it('refuses what cannot be read whole, and keeps a text part that is not UTF-8 as MalformedText', () => {
    const type = 'multipart/form-data; boundary=b0';
    const part = (value: string) => `--b0\r\nContent-Disposition: form-data; name="content"\r\n\r\n${value}\r\n`;
    const bytes = (text: string) => Buffer.from(text, 'latin1');
    expect(parseMultipart(bytes(`${part('hi')}--b0--\r\n`), type)).toEqual([['content', 'hi']]);
    expect(parseMultipart(bytes(`${part('hi')}--b0--`), 'multipart/form-data; boundary="b0"')).toEqual([
      ['content', 'hi'],
    ]);
    for (const [body, contentType] of [
      [`${part('hi')}--b0--\r\n`, 'multipart/form-data'], // no boundary
      [`${part('hi')}--b0--\r\n`, 'multipart/form-data; boundary=other'], // not the body's
      [`${part('hi')}--b0--\r\n`, 'multipart/form-data; boundary='], // empty
      [part('hi'), type], // no closing delimiter
      ['--b0\r\nContent-Disposition: form-data; name="content"\r\n\r\nhi', type], // cut short
      ['--b0\r\nContent-Disposition: form-data; name="content"', type], // cut in the headers
      ['--b0\r\n\r\nhi\r\n--b0--', type], // a part without headers
      ['--b0\r\nContent-Disposition: attachment; name="a"\r\n\r\nhi\r\n--b0--', type], // not form-data
      ['--b0\r\nContent-Disposition: form-data\r\n\r\nhi\r\n--b0--', type], // no name
      ['--b0\r\nno colon here\r\n\r\nhi\r\n--b0--', type], // not a header
      ["--b0\r\nContent-Disposition: form-data; name=a; filename*=latin1''x\r\n\r\nhi\r\n--b0--", type],
      ['garbage', type],
      ['', type],
    ] as const) {
      expect(parseMultipart(bytes(body), contentType), `${JSON.stringify(body)} as ${contentType}`).toBeUndefined();
    }
    const [[name, value]] = parseMultipart(bytes(`${part('a\xffb')}--b0--`), type) as [[string, unknown]];
    expect(name).toBe('content');
    expect(value).toEqual(new MalformedText('a\ufffdb'));
  });
});
