/**
 * The harness of the in-process shell tests (messages-shell-*.test.ts, tail-lines.test.ts): the
 * program's commands as commander holds them, what in a text a person at the shell cannot act on
 * (codeWords), and a run of the command line in this process, as main.ts runs it, against a
 * sandbox the file starts (shellWithSandbox).
 */
import { stripVTControlCharacters } from 'node:util';
import { type Command, CommanderError } from 'commander';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { ENV } from 'tenant-messaging-bin-kit';
import { afterAll, beforeAll, beforeEach, expect, vi } from 'vitest';
import { report } from '../../src/output/report.js';
import { program } from '../../src/program/program.js';
import { exitCodeOf } from '../../src/shell/exit-codes.js';
import { SECRET_ENV } from '../../src/shell/webhook-secret.js';

export const SENDER = '+15550001001';
/** The scopes an API key can carry (spec section 5). */
const SCOPES: readonly string[] = ['messages.send', 'messages.read', 'contacts.lookup', 'usage.read'];

type Tenant = RunningSandbox['tenants'][string];

/**
 * The program's commands, as commander holds them; `sandbox` parses its own arguments
 * (src/program/sandbox-main.ts), and the hidden `mcp` only says where the MCP server went (its own test below).
 */
const definition = program(new AbortController().signal, async () => {});
export const COMMANDS = definition.commands.filter((command) => !['sandbox', 'mcp'].includes(command.name()));
const NAMES = definition.commands.map((command) => command.name());
export const commandNamed = (name: string) => COMMANDS.find((command) => command.name() === name) as Command;

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
export function codeWords(text: string, command: Command | undefined, typed: readonly string[] = []): string[] {
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

export interface Run {
  readonly code: number;
  readonly stdout: string;
  /** What main.ts prints: commander's own lines, or the report of what the command threw. */
  readonly stderr: string;
  readonly error: unknown;
}

/**
 * Runs the command line in this process as main.ts does, with the credentials of `tenant`:
 * stdout and stderr captured, the environment given (undefined unsets), the report of an error
 * printed as main.ts prints it. One run at a time: a run takes the process's stdout and stderr.
 */
async function runIn(
  tenant: Tenant,
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

/** A sandbox for this file's tests (faults cleared before each), and runs against its acme tenant. */
export interface Shell {
  readonly sandbox: RunningSandbox;
  readonly tenant: Tenant;
  run(args: readonly string[], options?: Parameters<typeof runIn>[2]): Promise<Run>;
}

/**
 * Starts a sandbox for the file (call at its top level): slow enough for tail to see a new log as
 * sent before it is delivered and read.
 */
export function shellWithSandbox(): Shell {
  let sandbox: RunningSandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ delivery: { deliveredAfterMs: 200, readAfterMs: 400 } });
  });
  afterAll(() => sandbox?.close());
  beforeEach(() => sandbox?.faults.clear());
  const started = () => {
    if (sandbox === undefined) throw new Error('the sandbox starts in beforeAll');
    return sandbox;
  };
  return {
    get sandbox() {
      return started();
    },
    get tenant() {
      return started().tenants['acme'] as Tenant;
    },
    run: (args, options) => runIn(started().tenants['acme'] as Tenant, args, options),
  };
}

/** `stderr` is in the shell's words, and its hint names `command`'s help. */
export function expectHelpOf(name: string | undefined, result: Run, args: readonly string[]): void {
  const label = args.join(' ');
  expect(codeWords(result.stderr, name === undefined ? undefined : commandNamed(name), args), label).toEqual([]);
  expect(result.stderr, label).toContain(`See \`tenant-messaging ${name === undefined ? '' : `${name} `}--help\`.`);
  expect(result.code, label).toBe(2);
  expect(result.stdout, label).toBe('');
}

/**
 * What makes command `name` parse: a value for each required argument and each mandatory option,
 * but the option `without` (or, given '', the arguments).
 */
export function argsThatParse(name: string, without?: string): string[] {
  const command = commandNamed(name);
  return [
    ...(without === '' ? [] : command.registeredArguments.filter((arg) => arg.required).map(() => '1')),
    ...command.options.filter((o) => o.mandatory && o.long !== without).flatMap((o) => [o.long as string, '1']),
  ];
}
