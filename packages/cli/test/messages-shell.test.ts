/**
 * What the person at the shell reads, in process (the program commander runs, and the report
 * main.ts prints of what it throws), against a sandbox in this process: no spawn. The class of
 * mistakes: a placeholder printed as it is (`<command>`, `<id>`), or a name only code knows (an
 * SDK option such as `timeout` or `apiKey`, a call such as `client.messages.reconcile(...)`, a flag
 * the command does not have). Checked over every command of the program's own definition: each
 * usage error commander makes, each usage error an action raises, and each error of the SDK a
 * command can meet, with its hint; then the hints that name what the bin knows (the scope a key
 * lacks, the log id, the command), Ctrl-C without a stray error, and `tail`'s lines.
 */
import { stripVTControlCharacters } from 'node:util';
import { type Command, CommanderError } from 'commander';
import {
  APIConnectionError,
  APITimeoutError,
  DeliveryTimeoutError,
  MessagingClient,
  ResponseValidationError,
  SendOutcomeUnknownError,
} from 'tenant-messaging';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { ENV } from 'tenant-messaging-bin-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { exitCodeOf } from '../src/exit-codes.js';
import { located } from '../src/hints.js';
import { program } from '../src/program.js';
import { report } from '../src/report.js';
import { SECRET_ENV } from '../src/webhook-secret.js';
import { type SdkErrorKey, sdkErrors } from './sdk-errors.js';

const SENDER = '+15550001001';
/** The scopes an API key can carry (spec section 5). */
const SCOPES: readonly string[] = ['messages.send', 'messages.read', 'contacts.lookup', 'usage.read'];
let sandbox: RunningSandbox;
let tenant: RunningSandbox['tenants'][string];

beforeAll(async () => {
  // Slow enough for tail to see a new log as sent before it is delivered and read.
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 200, readAfterMs: 400 } });
  tenant = sandbox.tenants['acme'] as RunningSandbox['tenants'][string];
});
afterAll(() => sandbox?.close());
beforeEach(() => sandbox.faults.clear());

/**
 * The program's commands, as commander holds them; `sandbox` parses its own arguments
 * (src/sandbox-main.ts), and the hidden `mcp` only says where the MCP server went (its own test below).
 */
const definition = program(new AbortController().signal, async () => {});
const COMMANDS = definition.commands.filter((command) => !['sandbox', 'mcp'].includes(command.name()));
const NAMES = definition.commands.map((command) => command.name());
const commandNamed = (name: string) => COMMANDS.find((command) => command.name() === name) as Command;

/** Every long flag `command` takes: its own and the global ones, the hidden (refused) ones and --help included. */
const flagsOf = (command: Command | undefined): Set<string> =>
  new Set(['--help', ...[...definition.options, ...(command?.options ?? [])].flatMap((option) => option.long ?? [])]);

/** The environment variables the bin reads. */
const VARIABLES = new Set([ENV.baseUrl, ENV.apiKey, ENV.logLevel, SECRET_ENV]);

/**
 * What in `text` a person at the shell cannot act on: a placeholder, a flag `command` does not
 * have (but one the person typed, quoted back), a variable the bin does not read, a name or a call
 * from code, a quoted word that is not a command line, a flag or a scope, and a `tenant-messaging`
 * command that does not exist.
 */
function codeWords(text: string, command: Command | undefined, typed: readonly string[] = []): string[] {
  const flags = new Set([...flagsOf(command), ...typed.filter((word) => word.startsWith('--'))]);
  const found: string[] = [];
  const look = (what: string, pattern: RegExp, wrong: (match: RegExpExecArray) => boolean = () => true) => {
    for (const match of text.matchAll(pattern)) if (wrong(match)) found.push(`${what}: ${match[0]}`);
  };
  look('placeholder', /<[^<>\s]+>/g);
  look('not a flag of this command', /(?<![\w-])--[a-z][\w-]*/g, ([flag]) => !flags.has(flag));
  look('not a variable the bin reads', /\bTENANT_MESSAGING_\w*/g, ([name]) => !VARIABLES.has(name));
  look('a name in code', /\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/g);
  look('code', /\b(?:client|error|options)\.\w+/g);
  look('not a command', /`tenant-messaging ([a-z][\w-]*)/g, ([, name]) => !NAMES.includes(name as string));
  look(
    'a quoted name',
    /`([^`]+)`/g,
    ([, quoted = '']) =>
      !quoted.startsWith('tenant-messaging ') && !flags.has(quoted) && !SCOPES.includes(quoted) && quoted !== 'ps',
  );
  return found;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  /** What main.ts prints: commander's own lines, or the report of what the command threw. */
  readonly stderr: string;
  readonly error: unknown;
}

/**
 * Runs the command line in this process as main.ts does: stdout and stderr captured, the
 * environment given (undefined unsets), the report of an error printed as main.ts prints it.
 * One run at a time: a run takes the process's stdout and stderr for itself.
 */
async function run(
  args: readonly string[],
  {
    env = {},
    signal = new AbortController().signal,
    onStdout,
  }: {
    env?: Record<string, string | undefined>;
    signal?: AbortSignal;
    /** Called with all of stdout so far, at each write. */
    onStdout?: (stdout: string) => void;
  } = {},
): Promise<Run> {
  const vars = { [ENV.baseUrl]: tenant.baseUrl, [ENV.apiKey]: tenant.keys.full, [SECRET_ENV]: undefined, ...env };
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const setEnv = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  let stdout = '';
  let stderr = '';
  const writeOut = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    onStdout?.(stdout);
    return true;
  });
  const writeErr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  let error: unknown;
  let code = 0;
  try {
    setEnv(vars);
    await program(signal, async () => {}).parseAsync(['node', 'tenant-messaging', ...args]);
    code = typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (thrown) {
    error = thrown;
    if (thrown instanceof CommanderError) code = thrown.exitCode === 0 ? 0 : 2;
    else {
      stderr += report(thrown);
      code = exitCodeOf(thrown);
    }
  } finally {
    writeOut.mockRestore();
    writeErr.mockRestore();
    setEnv(saved);
    process.exitCode = undefined;
  }
  return { code, stdout, stderr: stripVTControlCharacters(stderr), error };
}

/** `stderr` is in the shell's words, and its hint names `command`'s help. */
function expectHelpOf(name: string | undefined, result: Run, args: readonly string[]): void {
  const label = args.join(' ');
  expect(codeWords(result.stderr, name === undefined ? undefined : commandNamed(name), args), label).toEqual([]);
  expect(result.stderr, label).toContain(`See \`tenant-messaging ${name === undefined ? '' : `${name} `}--help\`.`);
  expect(result.code, label).toBe(2);
  expect(result.stdout, label).toBe('');
}

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

/**
 * What makes command `name` parse: a value for each required argument and each mandatory option,
 * but the option `without` (or, given '', the arguments).
 */
function argsThatParse(name: string, without?: string): string[] {
  const command = commandNamed(name);
  return [
    ...(without === '' ? [] : command.registeredArguments.filter((arg) => arg.required).map(() => '1')),
    ...command.options.filter((o) => o.mandatory && o.long !== without).flatMap((o) => [o.long as string, '1']),
  ];
}

describe('the SDK’s errors, for every command that can meet them', () => {
  /** The SDK's errors of answers and of a failing media source, fresh for each use (sdk-errors.ts). */
  let take: (key: SdkErrorKey) => unknown;
  beforeAll(async () => {
    take = await sdkErrors(2 * COMMANDS.length);
  });
  const api = COMMANDS.map((command) => command.name());
  const sending = ['send', 'send-many', 'demo'];
  const waiting = ['send', 'wait', 'send-many', 'demo'];
  /** Each error as the SDK makes it (its own constructors and checks), and the commands that can meet it. */
  const errors: [what: string, commands: readonly string[], make: () => unknown][] = [
    ['a delivery timeout', waiting, () => new DeliveryTimeoutError(42, 60_000, 'read', { delivery_status: 'unknown' })],
    ['an unknown outcome after a timeout', sending, () => new SendOutcomeUnknownError(new APITimeoutError(30_000))],
    ['a timeout', api, () => new APITimeoutError(30_000, { neverSent: true })],
    ['no connection', api, () => new APIConnectionError(undefined, { neverSent: true })],
    ['a 401', api, () => take('401')],
    ['a 403 of an unknown call', api, () => take('403')],
    ['a 404', api, () => take('404')],
    ['a 429', api, () => take('429')],
    ['a proxy’s 502', api, () => take('502')],
    [
      'a body off the spec',
      api,
      () => new ResponseValidationError('GET /me', 200, {}, [{ path: 'data', message: 'x' }]),
    ],
    ['a media file that failed', ['send', 'send-many'], () => take('media')],
    ['a plain http base URL', api, () => clientError({ baseUrl: 'http://example.com', apiKey: 'k' })],
    ['credentials in the base URL', api, () => clientError({ baseUrl: 'https://u:p@example.com', apiKey: 'k' })],
    ['a mangled key', api, () => clientError({ baseUrl: 'https://example.com', apiKey: 'tm key' })],
  ];

  it('each reads in the command line’s words, with a hint that names no flag the command lacks', () => {
    let checked = 0;
    for (const [what, commands, make] of errors) {
      for (const name of commands) {
        for (const globals of [{}, { baseUrl: 'https://example.com', apiKeyFile: '/run/key' }]) {
          const error = located(make(), { command: name, flags: {}, globals });
          const text = stripVTControlCharacters(report(error));
          expect(codeWords(text, commandNamed(name)), `${what}, in ${name}: ${text}`).toEqual([]);
          expect(text, `${what}, in ${name}`).toMatch(/\n→ \S/);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(errors.length * 2);
  });
});

/** The ValidationError `new MessagingClient(options)` throws. */
function clientError(options: { baseUrl: string; apiKey: string }): unknown {
  try {
    new MessagingClient(options);
  } catch (error) {
    return error;
  }
  throw new Error(`the client took ${JSON.stringify(options)}`);
}

describe('hints that name what the bin knows', () => {
  it('a 403 names the scope of the endpoint that refused, command by command', async () => {
    const { keys } = tenant;
    const sent = await run(['send', '--from', SENDER, '--to', SANDBOX_PHONES.neverDelivered, '--text', 'x', '--json']);
    const id = String((JSON.parse(sent.stdout) as { id: number }).id);
    const text = ['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', 'Scoped'];
    const cases: [args: string[], key: string, scope: string | null][] = [
      [text, keys.noSend, 'messages.send'],
      // It sends (the key may), then the wait's read is refused: the read's scope, not the send's.
      [[...text, '--wait'], keys.noRead, 'messages.read'],
      [['get', id], keys.noRead, 'messages.read'],
      [['wait', id], keys.noRead, 'messages.read'],
      [['list'], keys.noRead, 'messages.read'],
      [['tail'], keys.noRead, 'messages.read'],
      [['usage'], keys.noUsage, 'usage.read'],
      [['lookup', SANDBOX_PHONES.reads, '--from', SENDER], keys.noLookup, 'contacts.lookup'],
      // The raw request: the scope of the endpoint table's row of that method and path.
      [['request', 'GET', `/messages/${id}`], keys.noRead, 'messages.read'],
    ];
    for (const [args, key, scope] of cases) {
      const result = await run(args, { env: { [ENV.apiKey]: key } });
      const afterSend = args.includes('--wait'); // the wait failed, not the send: exit 5 (sent)
      expect(result.code, args.join(' ')).toBe(afterSend ? 5 : 1);
      expect(result.stderr, args.join(' ')).toMatch(
        new RegExp(
          `(^|\\n)PermissionDeniedError: .*\\n→ This key lacks the \`${scope}\` scope: use a key that has it\\.\\n${afterSend ? '→ Sent: message log \\d+ was sent .*\\n' : ''}$`,
        ),
      );
    }
  });

  it('a delivery timeout names the flag that sets it and the log id; an unknown outcome, --reconcile', async () => {
    const sent = await run(
      ['send', '--from', SENDER, '--to', SANDBOX_PHONES.neverDelivered, '--text', 'Never delivered', '--wait'].concat([
        '--timeout',
        '200ms',
        '--interval',
        '50ms',
      ]),
    );
    const id = /sent: message log (\d+)/.exec(sent.stderr)?.[1];
    expect(sent.code).toBe(5);
    expect(sent.stderr).toContain('look again later or raise --timeout.');
    expect(sent.stderr).toContain(`\`tenant-messaging wait ${id}\` or \`tenant-messaging get ${id}\``);
    const waited = await run(['wait', id as string, '--timeout', '200ms', '--interval', '50ms']);
    expect(waited.code).toBe(4);
    expect(waited.stderr).toContain('raise --timeout.');
    expect(waited.stderr).toContain(`\`tenant-messaging get ${id}\``);

    sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage', times: 1 });
    const lost = await run(['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', 'Lost answer']);
    expect(lost.code).toBe(3);
    expect(codeWords(lost.stderr, commandNamed('send'))).toEqual([]);
    expect(lost.stderr).toMatch(/\n→ Do not send it again blindly: look for it with `tenant-messaging list` first\./);
    // Searched for and not found (it never reached the service): not "run it with --reconcile" again.
    sandbox.faults.add({ kind: 'drop', route: 'sendMessage', times: 1 });
    const dropped = await run([
      'send',
      '--from',
      SENDER,
      '--to',
      SANDBOX_PHONES.reads,
      '--text',
      'Dropped',
      '--reconcile',
    ]);
    expect(dropped.code).toBe(3);
    expect(dropped.stderr).toMatch(/\n→ It was not found in the message logs yet: .*`tenant-messaging list`/);
  });

  it('a 404 points at the id, or for request at the path', async () => {
    const got = await run(['get', '424242']);
    expect(got.stderr).toMatch(/\n→ Check the id: it is not one of this tenant’s\.\n$/);
    const requested = await run(['request', 'GET', '/no-such-endpoint']);
    expect(requested.stderr).toMatch(/\n→ Check the path: the API has no such endpoint/);
  });

  it('Ctrl-C during a wait or a read ends the command without an error to report', async () => {
    const sent = await run(['send', '--from', SENDER, '--to', SANDBOX_PHONES.neverDelivered, '--text', 'x', '--json']);
    const id = String((JSON.parse(sent.stdout) as { id: number }).id);
    for (const args of [
      ['wait', id],
      ['get', id],
      ['send', '--from', SENDER, '--to', SANDBOX_PHONES.neverDelivered, '--text', 'x', '--wait'],
    ]) {
      // The read is held until after Ctrl-C, so that the signal aborts it.
      sandbox.faults.clear();
      sandbox.faults.add({ kind: 'latency', latencyMs: 3_000, route: 'getMessage', times: 1 });
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('Interrupted (Ctrl-C)')), 150);
      const started = Date.now();
      const result = await run(args, { signal: controller.signal });
      if (args[0] === 'send') expect(result.code).toBe(5);
      else expect(result.error, args.join(' ')).toBeUndefined();
      expect(result.stderr, args.join(' ')).not.toMatch(/Error/);
      expect(Date.now() - started, args.join(' ')).toBeLessThan(2_000);
    }
  });
});

describe('tail, for people', () => {
  const LINE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) {2}message log (\d+) {2}(\w+) +to (\+\d+) {2}(\w+(?: -> \w+)?)$/;

  it('one line per event: the time, the log, its type, the recipient and the status or its change; never the content', async () => {
    const secret = 'Your code is 7301';
    // Sent by the SDK, not by a second run: a run captures the process's stdout for itself.
    const client = new MessagingClient({ baseUrl: tenant.baseUrl, apiKey: tenant.keys.full });
    const send = () =>
      client.messages.send({ sender_phone: SENDER, to_phone: SANDBOX_PHONES.reads, type: 'text', content: secret });
    const before = Date.now();
    await send();
    const once = await run(['tail']);
    expect(once.code).toBe(0);
    const first = once.stdout.trim().split('\n');
    expect(first.length).toBeGreaterThan(0);
    for (const line of first) expect(line).toMatch(LINE);
    const newest = LINE.exec(first.at(-1) as string) ?? [];
    expect(newest.slice(3)).toEqual(['text', SANDBOX_PHONES.reads, expect.stringMatching(/^(sent|delivered|read)$/)]);
    // A new log is timed by its sent_at.
    expect(Date.parse(newest[1] as string)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);

    // --follow: a change is a line of its own, from one status to the next, timed when seen.
    const controller = new AbortController();
    let fresh: number | undefined;
    let read: () => void = () => {};
    const readSeen = new Promise<void>((resolve) => (read = resolve));
    const following = run(['tail', '--follow', '--interval', '50ms'], {
      signal: controller.signal,
      onStdout: (stdout) => {
        if (fresh !== undefined && new RegExp(`message log ${fresh} .* -> read\\n`).test(stdout)) read();
      },
    });
    fresh = (await send()).id;
    const since = Date.now();
    await Promise.race([readSeen, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    await client.close();
    controller.abort(new Error('Interrupted (Ctrl-C)'));
    const followed = await following;
    expect(followed.code).toBe(130);
    const lines = followed.stdout.trim().split('\n');
    for (const line of lines) expect(line).toMatch(LINE);
    const changes = lines.filter((line) => line.includes(`message log ${fresh} `) && line.includes(' -> '));
    expect(changes.at(-1)).toMatch(/ {2}text {6}to \+15557654321 {2}(sent|delivered) -> read$/);
    expect(Date.parse(LINE.exec(changes.at(-1) as string)?.[1] as string)).toBeGreaterThanOrEqual(
      Math.floor(since / 1000) * 1000,
    );
    expect(once.stdout + followed.stdout).not.toContain(secret);
  });
});
