/**
 * What the person at the shell reads of a usage error, in process (the program commander runs, and
 * the report main.ts prints of what it throws), against a sandbox in this process: no spawn. The
 * class of mistakes: a placeholder printed as it is (`<command>`, `<id>`), or a name only code
 * knows (an SDK option such as `timeout` or `apiKey`, a flag the command does not have). Checked
 * over every command of the program's own definition: each usage error commander makes, and each
 * usage error an action raises. The SDK's errors and the hints: messages-shell-hints.test.ts.
 */
import { CommanderError } from 'commander';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { ENV } from 'tenant-messaging-bin-kit';
import { describe, expect, it } from 'vitest';
import { argsThatParse, COMMANDS, expectHelpOf, SENDER, shellWithSandbox } from './shell-harness.js';

const { run } = shellWithSandbox();

describe('usage errors, for every command of the program', () => {
  it('commander’s (unknown, missing or surplus words, a bad choice) name the command’s help, no syntax', async () => {
    const cases: [name: string | undefined, args: string[]][] = [
      [undefined, ['no-such-command']],
      [undefined, ['--no-such-flag', 'me']],
    ];
    for (const command of COMMANDS) {
      const name = command.name();
      const valid = [name, ...argsThatParse(name)];
      cases.push([name, [...valid, '--no-such-flag']]);
      cases.push([name, [...valid, 'one-too-many']]);
      if (command.registeredArguments.some((arg) => arg.required))
        cases.push([name, [name, ...argsThatParse(name, '')]]);
      for (const option of command.options) {
        if (option.hidden || !option.long) continue;
        if (option.mandatory) cases.push([name, [name, ...argsThatParse(name, option.long)]]);
        if (option.required) cases.push([name, [...valid, option.long]]);
        if (option.argChoices) cases.push([name, [...valid, option.long, 'not-a-choice']]);
      }
    }
    expect(cases.length).toBeGreaterThan(COMMANDS.length * 3);
    for (const [name, args] of cases) {
      const result = await run(args);
      expect(result.error, args.join(' ')).toBeInstanceOf(CommanderError);
      expectHelpOf(name, result, args);
    }
  });

  it('the actions’ (a bad value, a refused flag, the SDK refusing a parameter) name the command’s flags and help', async () => {
    type Env = Record<string, string | undefined>;
    /** A case run with these variables (undefined unsets). */
    const withEnv = (env: Env, ...args: string[]) => ({ args, env });
    const nowhere = { [ENV.baseUrl]: undefined, [ENV.apiKey]: undefined };
    // Every command but the demo needs credentials: each is also run without them (below).
    const cases: Record<string, (readonly string[] | { readonly args: readonly string[]; readonly env: Env })[]> = {
      send: [
        ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads],
        ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', 'x', '--image', 'a.png'],
        ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', 'x', '--caption', 'c'],
        ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', 'x', '--wait', 'soon'],
        ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', 'x', '--timeout', '9999h'],
        ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', ''],
        ['send', '--from', '', '--to', SANDBOX_PHONES.reads, '--text', 'x'],
        ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--image', ''],
        ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--voice', '/no/such/file.ogg'],
      ],
      'send-many': [
        ['send-many', '--file', '/no/such/file.csv', '--track', 'soon'],
        ['send-many', '--file', '/no/such/file.csv'],
      ],
      tail: [['tail', '--interval', 'soon']],
      listen: [
        ['listen', '--forward-to', 'http://localhost:1/hooks', '--events', 'message.bogus'],
        ['listen', '--forward-to', 'http://localhost:1/hooks', '--secret', 'whsec_x'],
        ['listen', '--forward-to', 'http://localhost:1/hooks', '--secret-file', '/no/such/file'],
        ['listen', '--forward-to', 'http://localhost:1/hooks', '--interval', '0'],
        ['listen', '--forward-to', 'ftp://example.com/hooks'],
        ['listen', '--forward-to', 'http://example.com/hooks'],
      ],
      get: [
        ['get', 'abc'],
        ['get', '99999999999999999999'],
      ],
      wait: [
        ['wait', 'abc'],
        ['wait', '1', '--timeout', 'soon'],
        ['wait', '1', '--interval', '0.1ms'],
      ],
      list: [['list', '--limit', '0']],
      me: [
        ['me', '--api-key', 'tm_live_secret'],
        ['me', '--api-key-file', '/no/such/file'],
        withEnv({ [ENV.baseUrl]: 'http://example.com' }, 'me'),
        withEnv({ [ENV.baseUrl]: 'not a url' }, 'me'),
        ['--base-url', 'https://user:pass@example.com', 'me'],
        withEnv({ [ENV.apiKey]: 'tm key with spaces' }, 'me'),
      ],
      usage: [withEnv(nowhere, 'usage')],
      subscription: [withEnv({ [ENV.baseUrl]: undefined }, 'subscription')],
      senders: [withEnv({ [ENV.apiKey]: undefined }, 'senders')],
      lookup: [['lookup', '', '--from', SENDER]],
      request: [
        ['request', 'FETCH', '/me'],
        ['request', 'GET', '/messages?page=2'],
        ['request', 'GET', '/me', '--data', '{}'],
        ['request', 'POST', '/messages', '--data', '{'],
      ],
      demo: [['demo', '--json'], withEnv({ [ENV.baseUrl]: 'https://acme.example.com' }, 'demo'), ['demo', '--to', ' ']],
    };
    expect(Object.keys(cases).sort()).toEqual(COMMANDS.map((command) => command.name()).sort());
    for (const [name, list] of Object.entries(cases)) {
      const runs = list.map((entry) => ('args' in entry ? entry : { args: entry, env: {} }));
      if (name !== 'demo') runs.push(withEnv(nowhere, name, ...argsThatParse(name)));
      for (const { args, env } of runs) {
        const result = await run(args, { env });
        expect(result.error, args.join(' ')).not.toBeInstanceOf(CommanderError);
        expectHelpOf(name, result, args);
      }
    }
  });

  it('`mcp`, with any flags, says the MCP server is its own package and how to run it (exit 2)', async () => {
    for (const args of [['mcp'], ['mcp', '--allow-send', '--max-sends', '3'], ['mcp', '--http', '127.0.0.1:8808']]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('npx -y tenant-messaging-mcp');
    }
  });

  it('missing credentials say which flag or variable gives each', async () => {
    const result = await run(['me'], { env: { [ENV.baseUrl]: undefined, [ENV.apiKey]: ' ' } });
    expect(result.stderr).toBe(
      [
        'UsageError: Missing credentials:',
        `  - the tenant URL: pass --base-url (e.g. --base-url https://acme.example.com), or set ${ENV.baseUrl}`,
        `  - the API key: set ${ENV.apiKey}, or put the key in a file and pass its path with --api-key-file`,
        '→ See `tenant-messaging me --help`.',
        '',
      ].join('\n'),
    );
  });
});
