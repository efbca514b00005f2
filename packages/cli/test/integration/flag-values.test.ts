/**
 * The class of a bad flag value, over every flag of every command that takes one: each flag is
 * given a kind below (a new flag without one fails the first test), and each numeric or enum kind
 * is given the values people mistype. Every one is refused before any request with one line that
 * names the flag, then the help hint, and exit code 2. So is every mistyped flag name, named as
 * typed even when a required flag is missing too. In process, against a sandbox in this process.
 */
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { describe, expect, it, vi } from 'vitest';
import { sandboxMain } from '../../src/program/sandbox-main.js';
import { argsThatParse, COMMANDS, commandNamed, SENDER, shellWithSandbox } from './shell-harness.js';

const shell = shellWithSandbox();

/** What a flag's value is: the kinds with planted values below, or free text (a phone, a path, a URL). */
type Kind = 'duration' | 'count' | 'rate' | 'choice' | 'status' | 'events' | 'free';

const KINDS: Readonly<Record<string, Kind>> = {
  'send --from': 'free',
  'send --to': 'free',
  'send --text': 'free',
  'send --image': 'free',
  'send --voice': 'free',
  'send --document': 'free',
  'send --caption': 'free',
  'send --wait': 'status',
  'send --timeout': 'duration',
  'send --interval': 'duration',
  'send-many --file': 'free',
  'send-many --from': 'free',
  'send-many --concurrency': 'count',
  'send-many --rate': 'rate',
  'send-many --track': 'status',
  'send-many --track-timeout': 'duration',
  'tail --interval': 'duration',
  'listen --forward-to': 'free',
  'listen --secret-file': 'free',
  'listen --secret': 'free',
  'listen --events': 'events',
  'listen --interval': 'duration',
  'wait --until': 'choice',
  'wait --timeout': 'duration',
  'wait --interval': 'duration',
  'list --status': 'choice',
  'list --limit': 'count',
  'lookup --from': 'free',
  'request --data': 'free',
  'demo --to': 'free',
};

/** What people mistype, by kind. */
const BAD: Readonly<Record<Exclude<Kind, 'free'>, readonly string[]>> = {
  duration: ['0', '-1', 'abc', '1e3', '5 minutes', '0.1ms', '9999h', ''],
  count: ['0', '-1', 'abc', '1e3', '2.5', '0x10', ''],
  rate: ['0', '0/s', '0.0/min', 'abc', '5/hour', '-1/s', '1e3/s', ''],
  choice: ['not-a-choice', 'DELIVERED', ''],
  status: ['soon', 'Read'],
  events: ['message.bogus', 'delivered'],
};

/** The words that make each command run but for the flag under test (no value is bad in them). */
const BASE: Readonly<Record<string, readonly string[]>> = {
  send: ['--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', 'x'],
  'send-many': ['--file', '/no/such/file.csv'],
  listen: ['--forward-to', 'http://127.0.0.1:1/hooks'],
};
const baseOf = (name: string) => [name, ...(BASE[name] ?? argsThatParse(name))];

/** Every flag of every command that takes a value, as `command --flag`. */
const valued = COMMANDS.flatMap((command) =>
  command.options.filter((o) => (o.required || o.optional) && o.long).map((o) => `${command.name()} ${o.long}`),
);

/** The run refused `flag` on one line naming it, then the hint: exit 2, nothing on stdout. */
function expectOneLineNaming(run: { code: number; stdout: string; stderr: string }, flag: string, label: string) {
  const lines = run.stderr.trimEnd().split('\n');
  expect(run.code, label).toBe(2);
  expect(run.stdout, label).toBe('');
  expect(lines, label).toHaveLength(2);
  expect(lines[0], label).toContain(flag);
  expect(lines[1], label).toMatch(/^→ See `tenant-messaging [\w-]+ --help`\.$/);
}

describe('flag values', () => {
  it('every flag that takes a value has a kind here', () => {
    expect(valued.filter((flag) => KINDS[flag] === undefined)).toEqual([]);
    expect(Object.keys(KINDS).filter((flag) => !valued.includes(flag))).toEqual([]);
  });

  it('every mistyped numeric or enum value: one line naming the flag, exit 2, before any request', async () => {
    const before = shell.sandbox.messages('acme').length;
    let cases = 0;
    for (const flag of valued) {
      const kind = KINDS[flag] as Kind;
      if (kind === 'free') continue;
      const [name = '', long = ''] = flag.split(' ');
      for (const value of BAD[kind]) {
        // `--track soon`, `--wait Read`: the optional value is given inline, as it must be to bind.
        const words = kind === 'status' ? [`${long}=${value}`] : [long, value];
        const args = [...baseOf(name), ...words];
        expectOneLineNaming(await shell.run(args), long, args.join(' '));
        cases += 1;
      }
    }
    expect(cases).toBeGreaterThan(60);
    expect(shell.sandbox.messages('acme')).toHaveLength(before);
  });

  it('every flag name mistyped is named as typed, with the nearest flag, even with a required flag missing', async () => {
    for (const command of COMMANDS) {
      for (const option of command.options) {
        if (option.hidden || !option.long || option.long.length < 6) continue;
        // A letter dropped from the middle: `--from` typed `--frm`.
        const typo = option.long.slice(0, 3) + option.long.slice(4);
        if (command.options.some((o) => o.long === typo)) continue;
        const args = [command.name(), typo, '1'];
        const run = await shell.run(args);
        expectOneLineNaming(run, typo, args.join(' '));
        expect(run.stderr, args.join(' ')).toMatch(
          new RegExp(`unknown option '${typo}' \\(did you mean --[\\w-]+\\?\\)`),
        );
      }
    }
    expect(commandNamed('send').options.length).toBeGreaterThan(5);
  });

  it('the sandbox command’s numeric flags: one line naming the flag, exit 2', async () => {
    for (const [flag, values] of [
      ['--port', ['abc', '-1', '70000', '0x50', '', '--rate-limit']],
      ['--rate-limit', ['0', 'abc', '5/hour', '']],
      ['--sender-limit', ['0', 'abc', '1e3', '']],
      ['--pair-interval', ['0', 'abc', '2.5', '']],
    ] as const) {
      for (const value of values) {
        const error = vi.spyOn(console, 'error').mockImplementation(() => {});
        try {
          await sandboxMain([flag, value]);
          const lines = error.mock.calls.map((call) => String(call[0]));
          expect(lines, `${flag} ${value}`).toHaveLength(1);
          expect(lines[0], `${flag} ${value}`).toMatch(
            new RegExp(`^tenant-messaging sandbox: ${flag}\\b.*[.!?] See \`tenant-messaging sandbox --help\`\\.$`),
          );
          expect(process.exitCode).toBe(2);
        } finally {
          error.mockRestore();
          process.exitCode = undefined;
        }
      }
    }
  });
});
