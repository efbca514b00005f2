/**
 * A key pasted into a flag's value is redacted before the value is shortened for its refusal:
 * shortened first, the quote keeps the key's first or last characters, which the whole key no
 * longer matches. Checked on every flag the server quotes back, in the module and once through
 * the built bin (its stderr), for the key of the environment and the key of a key file.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from 'tenant-messaging-bin-kit';
import { describe, expect, it } from 'vitest';
import { decodings } from '../../../bin-kit/test/decodings.js';
import { parseCommandLine } from '../../src/shell/command.js';
import { mcpSettings } from '../../src/shell/options.js';
import { startBin, TOKEN } from './bin-fixture.js';

const KEY = 'tmk_live_Zq8Xw3Rv7Np2Lk5Hs9Tb4Yc6Vm1Jd0Gf';
const PASTES = { raw: KEY, base64: Buffer.from(KEY).toString('base64') };

/** Every 8 characters of the key: none may be read back from `text`, however decoded (one assertion). */
function expectNoPartOfKey(text: string): void {
  const forms = decodings(text);
  const found: string[] = [];
  for (let at = 0; at + 8 <= KEY.length; at++) {
    const part = KEY.slice(at, at + 8);
    for (const form of forms) if (form.includes(part)) found.push(`${part} in ${form}`);
  }
  expect(found, text).toEqual([]);
}

/** The message of the UsageError `run` throws. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('no refusal');
}

describe('a key pasted into a flag', () => {
  for (const [spelling, paste] of Object.entries(PASTES)) {
    // The key set apart (a space, a comma), as a paste is: base64 glued to other letters decodes shifted.
    const long = (around: string) => `${around.repeat(6)}${paste}${around.repeat(6)}`;
    const cases: Record<string, () => unknown> = {
      '--allow-recipients': () =>
        mcpSettings({ allowSend: true, allowRecipients: long('+1555,') }, { TENANT_MESSAGING_API_KEY: KEY }, false),
      '--allow-recipients (one pattern)': () =>
        mcpSettings({ allowSend: true, allowRecipients: `+1555,${long('9,')}` }, {}, false, [KEY]),
      '--max-sends': () =>
        mcpSettings({ allowSend: true, maxSends: long('5 ') }, { TENANT_MESSAGING_API_KEY: KEY }, false),
      '--http': () => mcpSettings({ http: `127.0.0.1:${long('8 ')}` }, { TENANT_MESSAGING_API_KEY: KEY }, false),
      '--http (host)': () => mcpSettings({ http: `${long('h ')}:8808` }, {}, false, [KEY]),
      'an unknown option': () => parseCommandLine([`--${long('x,')}`], [KEY]),
    };
    for (const [flag, run] of Object.entries(cases)) {
      it(`${flag}, ${spelling}: the refusal quotes no part of it`, () => {
        const message = refusal(run);
        expect(message).toContain('[redacted]');
        expectNoPartOfKey(message);
      });
    }
  }

  it('through the bin, from the environment and from a key file: stderr shows no part of it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-quoted-'));
    try {
      const keyFile = join(dir, 'key');
      await writeFile(keyFile, `${KEY}\n`);
      const value = `+1555,+1666,${KEY},+1777,+1888`;
      const [fromEnv, fromFile] = [
        startBin(['--allow-send', '--allow-recipients', value], { TENANT_MESSAGING_API_KEY: KEY }),
        startBin(['--allow-send', '--max-sends', value, '--api-key-file', keyFile], {
          TENANT_MESSAGING_API_KEY: undefined,
          TENANT_MESSAGING_MCP_TOKEN: TOKEN,
        }),
      ];
      expect(await fromEnv.exit).toBe(2);
      expect(await fromFile.exit).toBe(2);
      for (const run of [fromEnv, fromFile]) {
        expect(run.stderr()).toMatch(/--(allow-recipients|max-sends)/);
        expectNoPartOfKey(run.stderr());
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
