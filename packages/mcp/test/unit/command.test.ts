/**
 * The command line of `tenant-messaging-mcp`, in this process: each flag to its setting, and a bad
 * one refused with the usage (mcp-bin.test.ts checks the exit code 2 and `--version` on the bin).
 */

import { UsageError } from 'tenant-messaging-bin-kit';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/shell/command.js';

describe('parseCommandLine', () => {
  it('the command line: each flag to its setting, --flag=value too; a bad flag is a UsageError with the usage', () => {
    expect(
      parseCommandLine([
        '--allow-send',
        '--max-sends=3',
        '--allow-recipients',
        '+1555*',
        '--http',
        '127.0.0.1:0',
        '--base-url',
        'http://127.0.0.1:1',
        '--api-key-file',
        './key',
        '--verbose',
      ]),
    ).toEqual({
      kind: 'serve',
      flags: { http: '127.0.0.1:0', allowSend: true, maxSends: '3', allowRecipients: '+1555*' },
      credentials: { baseUrl: 'http://127.0.0.1:1', apiKeyFile: './key', apiKey: undefined, verbose: true },
    });
    expect(parseCommandLine([])).toMatchObject({ kind: 'serve', flags: { allowSend: false } });
    expect(parseCommandLine(['--allow-send', '-h'])).toEqual({ kind: 'help' });
    expect(parseCommandLine(['-V'])).toEqual({ kind: 'version' });
    for (const args of [['--allow-sned'], ['-x'], ['serve'], ['--verbose=1'], ['--allow-recipients']]) {
      expect(() => parseCommandLine(args), args.join(' ')).toThrow(UsageError);
      expect(() => parseCommandLine(args), args.join(' ')).toThrow(/\nUsage: tenant-messaging-mcp \[--allow-send\]/);
    }
  });
});
