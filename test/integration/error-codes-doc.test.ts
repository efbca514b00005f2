/**
 * The table of error codes in docs/troubleshooting.md is what the SDK, the command line and the
 * MCP server say now: each code of `ERROR_CODES` with its meaning (test/helpers/error-meanings.ts), and the advice each bin gives for an
 * error of that code (test/helpers/error-samples.ts). `WRITE_DOCS=1` writes the table instead of
 * checking it, after a change that rewords it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { ERROR_CODES, type ErrorCode } from 'tenant-messaging';
import { describe, expect, it } from 'vitest';
import { explain as cliExplain, located } from '../../packages/cli/src/output/hints.js';
import { explain as mcpExplain } from '../../packages/mcp/src/answers/hints.js';
import { ERROR_MEANINGS } from '../helpers/error-meanings.js';
import { errorOfEveryCode } from '../helpers/error-samples.js';

const FILE = new URL('../../docs/troubleshooting.md', import.meta.url);
const START = '<!-- error-codes:start -->';
const END = '<!-- error-codes:end -->';

/** A table cell: one line, its pipes escaped. */
const cell = (text: string | undefined) => (text ?? '').replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|');

async function table(): Promise<string> {
  const samples = await errorOfEveryCode();
  const rows = ERROR_CODES.map((code: ErrorCode) => {
    const cli = cliExplain(located(samples[code], { command: 'send', flags: {}, globals: {} })).advice;
    const mcp = mcpExplain(samples[code]).advice;
    return `| \`${code}\` | ${cell(ERROR_MEANINGS[code])} | ${cell(cli)} | ${cell(mcp)} |`;
  });
  return ['| Code | What it means | The CLI advises | The MCP server advises |', '|---|---|---|---|', ...rows].join(
    '\n',
  );
}

describe('the table of error codes', () => {
  it('lists every code, with what the CLI and the MCP server advise', async () => {
    const text = readFileSync(FILE, 'utf8');
    const start = text.indexOf(START);
    const end = text.indexOf(END);
    expect(start, `docs/troubleshooting.md needs ${START} and ${END}`).toBeGreaterThan(-1);
    const wanted = `${START}\n${await table()}\n${END}`;
    const now = text.slice(start, end + END.length);
    if (process.env['WRITE_DOCS'] === '1') writeFileSync(FILE, text.replace(now, wanted));
    else
      expect(
        now,
        'docs/troubleshooting.md: run `WRITE_DOCS=1 npx vitest run test/integration/error-codes-doc.test.ts`',
      ).toBe(wanted);
  });
});
