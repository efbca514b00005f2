/**
 * The send-many file reader, in process (no bin spawned): files as people have them. Excel's "CSV
 * UTF-8" (a byte-order mark, CRLF), UTF-16 with its mark, rows written back byte for byte with the
 * reason column, and the files refused before any request: not UTF-8 (naming the line and byte
 * offset, across the reader's 16 KiB chunks too), a NUL, a header naming a field twice (or a field
 * and its alias), NDJSON keys given twice.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRows, type Row, type RowFile, readRows } from '../../src/rows/rows.js';
import { encodeText } from '../../src/rows/text-form.js';
import { headText, rowText } from '../../src/run-files/row-text.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tm-send-many-rows-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function fileOf(name: string, bytes: Buffer | string): Promise<string> {
  const path = join(dir, `${n++}-${name}`);
  await writeFile(path, bytes);
  return path;
}

async function rowsOf(file: RowFile): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const row of readRows(file)) rows.push(row);
  return rows;
}

/** What send-many writes back for every row of `file`, in the file's encoding. */
const writtenBack = (file: RowFile, rows: readonly Row[], reason?: string) =>
  encodeText(
    headText(file, reason !== undefined) + rows.map((row) => rowText(file, row, reason)).join(''),
    file.text.encoding,
  );

describe('send-many rows: files as people have them', () => {
  it('Excel "CSV UTF-8": the byte-order mark is skipped, CRLF rows and a quoted line break come back byte for byte', async () => {
    const text = '\uFEFFto,text\r\n+15557654321,"Hello, café"\r\n\r\n+15557654322,"two\r\nlines"\r\n+15557654323,last';
    const file = await openRows(await fileOf('excel.csv', text));
    expect(file).toMatchObject({ format: 'csv', text: { encoding: 'utf-8', bom: true }, header: 'to,text', rows: 3 });
    const rows = await rowsOf(file);
    expect(rows.map((row) => [row.line, row.fields])).toEqual([
      [2, { to: '+15557654321', text: 'Hello, café' }],
      [4, { to: '+15557654322', text: 'two\r\nlines' }],
      [6, { to: '+15557654323', text: 'last' }],
    ]);
    // The blank line is not a row; the last line had no line break and gets the header's.
    expect(writtenBack(file, rows).toString('utf8')).toBe(`${text.replace('\r\n\r\n', '\r\n')}\r\n`);
    // With the reason: one more column, the original line untouched before it.
    expect(writtenBack(file, rows.slice(0, 1), 'ValidationError: to_phone: "x"\nmust not be blank').toString()).toBe(
      '\uFEFFto,text,send_error\r\n+15557654321,"Hello, café","ValidationError: to_phone: ""x"" must not be blank"\r\n',
    );
  });

  it('UTF-16 LE and BE with their mark are decoded, and written back in the same bytes', async () => {
    const text = '\uFEFFto,text\r\n+15557654321,héllo ✓ 𝄞\r\n';
    const le = Buffer.from(text, 'utf16le');
    for (const [name, bytes] of [
      ['utf-16le', le],
      ['utf-16be', Buffer.from(le).swap16()],
    ] as const) {
      const file = await openRows(await fileOf(`${name}.csv`, bytes));
      expect(file.text).toEqual({ encoding: name, bom: true });
      const rows = await rowsOf(file);
      expect(rows.map((row) => row.fields)).toEqual([{ to: '+15557654321', text: 'héllo ✓ 𝄞' }]);
      expect(writtenBack(file, rows).equals(bytes)).toBe(true);
    }
  });

  it('refuses what is not text before any row, naming the line and byte offset', async () => {
    const latin1 = await fileOf('latin1.csv', Buffer.from('to,text\n+15557654321,caf\xe9 latin1 row\n', 'latin1'));
    await expect(openRows(latin1)).rejects.toThrow(
      /is not valid UTF-8 at line 2, byte offset 24 \(0xE9 0x20 0x6C 0x61: not a UTF-8 character\)\. Nothing was sent\./,
    );
    // The reader takes 16 KiB at a time: a character cut by a chunk's end is fine, and a bad byte
    // after it is found at its exact place.
    let prefix = 'to,text\n';
    while (prefix.length < 16_300) prefix += '+15557654321,padding\n';
    prefix += '+15557654321,';
    prefix += 'x'.repeat(16_383 - prefix.length);
    const across = Buffer.from(`${prefix}€€€\n`);
    expect(across.indexOf('€')).toBe(16_383); // its 3 bytes across the first two chunks
    const line = prefix.split('\n').length;
    expect((await openRows(await fileOf('across.csv', across))).rows).toBe(line - 1);
    const bad = Buffer.concat([Buffer.from(`${prefix}€€`), Buffer.from([0xf0, 0x28, 0x0a])]);
    await expect(openRows(await fileOf('bad-across.csv', bad))).rejects.toThrow(
      `at line ${line}, byte offset ${16_383 + 6} (0xF0 0x28 0x0A: not a UTF-8 character)`,
    );
    await expect(
      openRows(await fileOf('cut.csv', Buffer.from([...Buffer.from('to,text\n+1,caf'), 0xc3]))),
    ).rejects.toThrow(/at line 2, byte offset 14 \(0xC3: a character cut off by the end of the file\)/);
    // UTF-16 without its mark reads as UTF-8 full of NULs.
    const noMark = await fileOf('utf16-no-bom.csv', Buffer.from('to,text\n', 'utf16le'));
    await expect(openRows(noMark)).rejects.toThrow(/at line 1, byte offset 1 \(0x00 .*: a NUL character\)/);
    const lone = Buffer.concat([Buffer.from('\uFEFFto,text\n+1,', 'utf16le'), Buffer.from([0x00, 0xd8, 0x61, 0x00])]);
    await expect(openRows(await fileOf('lone.csv', lone))).rejects.toThrow(
      /not valid UTF-16 \(LE\) at line 2, byte offset 24 \(0x00 0xD8 0x61 0x00: a surrogate without its pair\)/,
    );
  });

  it('refuses a header that names a field twice, or a field and its alias, and one with no recipient', async () => {
    await expect(openRows(await fileOf('dup.csv', 'to,text,to\n+15557654321,hi,+15550000000\n'))).rejects.toThrow(
      'the header names the same column more than once: "to" twice (columns 1 and 3). Nothing was sent.',
    );
    await expect(openRows(await fileOf('alias.csv', 'To,text,TO_PHONE,Text\n+1,a,+2,b\n'))).rejects.toThrow(
      '"To" (column 1) and "TO_PHONE" (column 3), which are the same field, to; "text" twice (columns 2 and 4)',
    );
    // Unnamed columns (Excel leaves some) are not read; unknown ones are said.
    const loose = await openRows(await fileOf('loose.csv', 'to,Text,notes,,\n+1,a,x,,\n'));
    expect(loose).toMatchObject({ ignored: ['notes'], columns: ['to', 'text', undefined, undefined, undefined] });
    await expect(openRows(await fileOf('semicolons.csv', 'to;text\n+1;a\n'))).rejects.toThrow(
      /the header has no "to" column \(its columns: "to;text"\)/,
    );
    await expect(openRows(await fileOf('reason-first.csv', 'send_error,to,text\nx,+1,a\n'))).rejects.toThrow(
      /the send_error column is column 1 of 3/,
    );
    await expect(openRows(await fileOf('unclosed.csv', 'to,text\n+1,"open\n'))).rejects.toThrow(
      /is not valid CSV: Quote Not Closed/,
    );
  });

  it('a failed rows file sent again: its send_error column is not read, and a new reason takes its place', async () => {
    const file = await openRows(await fileOf('again.csv', 'to,text,send_error\n+1,"a, b","old, ""quoted"" reason"\n'));
    expect(file.reasonColumn).toBe(true);
    const [row] = await rowsOf(file);
    expect(row?.fields).toEqual({ to: '+1', text: 'a, b' });
    expect(writtenBack(file, [row as Row], 'UsageError: new').toString()).toBe(
      'to,text,send_error\n+1,"a, b","UsageError: new"\n',
    );
  });

  it('NDJSON: one object a line, written back with its reason; a key given twice (or with its alias) is refused', async () => {
    const text = '{"to":"+1","text":"hi"}\r\n\n{ "To_Phone": "+2", "image": "./a.png", "n": 1 }\n{}';
    const file = await openRows(await fileOf('rows.ndjson', text));
    expect(file).toMatchObject({ format: 'ndjson', rows: 3, ignored: ['n'] });
    const rows = await rowsOf(file);
    expect(rows.map((row) => [row.line, row.fields])).toEqual([
      [1, { to: '+1', text: 'hi' }],
      [3, { to: '+2', image: './a.png' }],
      [4, {}],
    ]);
    expect(writtenBack(file, rows).toString()).toBe(
      '{"to":"+1","text":"hi"}\r\n{ "To_Phone": "+2", "image": "./a.png", "n": 1 }\n{}\n',
    );
    expect(writtenBack(file, rows, 'E: x').toString()).toBe(
      '{"to":"+1","text":"hi","send_error":"E: x"}\r\n{ "To_Phone": "+2", "image": "./a.png", "n": 1 ,"send_error":"E: x"}\n{"send_error":"E: x"}\n',
    );
    for (const [line, message] of [
      ['{"to":"+1","text":"a","to":"+2"}', 'has the key "to" twice'],
      ['{"to":"+1","to_phone":"+2","text":"a"}', 'has "to" and "to_phone", which are both "to"'],
      ['["+1","a"]', 'is not a JSON object'],
    ]) {
      await expect(openRows(await fileOf('bad.ndjson', `{"to":"+1","text":"ok"}\n${line}\n`))).rejects.toThrow(
        `line 2 ${message}`,
      );
    }
  });
});
