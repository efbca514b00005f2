/**
 * What the person at the shell reads of an error, in process against a sandbox in this process:
 * each error of the SDK a command can meet, with its hint, in the command line's words (no SDK
 * option such as `timeout` or `apiKey`, no call such as `client.messages.reconcile(...)`, no flag
 * the command lacks); then the hints that name what the bin knows (the scope a key lacks, the log
 * id, the command), and Ctrl-C without a stray error.
 */
import { stripVTControlCharacters } from 'node:util';
import {
  APIConnectionError,
  APITimeoutError,
  DeliveryTimeoutError,
  ERROR_CODES,
  MessagingClient,
  ResponseValidationError,
  SendOutcomeUnknownError,
} from 'tenant-messaging';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { ENV } from 'tenant-messaging-bin-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorOfEveryCode } from '../../../../test/helpers/error-samples.js';
import { located } from '../../src/output/hints.js';
import { report } from '../../src/output/report.js';
import { type SdkErrorKey, sdkErrors } from './sdk-errors.js';
import { COMMANDS, codeWords, commandNamed, SENDER, shellWithSandbox } from './shell-harness.js';

const shell = shellWithSandbox();
const { run } = shell;

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

describe('every error code, in every command', () => {
  it('reads in the command line’s words, with advice (from the code, never the English)', async () => {
    const codes = ERROR_CODES;
    let checked = 0;
    for (const command of COMMANDS.map((c) => c.name())) {
      for (const globals of [{}, { baseUrl: 'https://example.com', apiKeyFile: '/run/key' }]) {
        const samples = await errorOfEveryCode();
        for (const code of codes) {
          const error = located(samples[code], { command, flags: {}, globals });
          const text = stripVTControlCharacters(report(error));
          expect(codeWords(text, commandNamed(command)), `${code}, in ${command}: ${text}`).toEqual([]);
          expect(text, `${code}, in ${command}`).toMatch(/\n→ \S/);
          checked++;
        }
      }
    }
    expect(checked).toBe(codes.length * COMMANDS.length * 2);
  });

  it('a base URL without its tenant path: `get` names the URL, not the id', async () => {
    const origin = new URL(shell.tenant.baseUrl).origin;
    const result = await run(['get', '1'], { env: { [ENV.baseUrl]: origin } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^NotFoundError: No such endpoint: .*\/api\/v1\/messages\/1 answered HTTP 404\.$/m);
    expect(result.stderr).toContain(
      `→ Check the tenant URL (--base-url or ${ENV.baseUrl}): it should be the tenant URL`,
    );
    expect(result.stderr).toContain(`(given: ${origin})`);
    expect(result.stderr).not.toContain('Check the id');
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
    const { keys } = shell.tenant;
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
    expect(sent.stderr).toContain(', or raise --timeout.');
    expect(sent.stderr).toContain(`\`tenant-messaging wait ${id}\` or \`tenant-messaging get ${id}\``);
    const waited = await run(['wait', id as string, '--timeout', '200ms', '--interval', '50ms']);
    expect(waited.code).toBe(4);
    expect(waited.stderr).toContain('raise --timeout.');
    expect(waited.stderr).toContain(`\`tenant-messaging get ${id}\``);

    shell.sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage', times: 1 });
    const lost = await run(['send', '--from', SENDER, '--to', SANDBOX_PHONES.reads, '--text', 'Lost answer']);
    expect(lost.code).toBe(3);
    expect(codeWords(lost.stderr, commandNamed('send'))).toEqual([]);
    expect(lost.stderr).toMatch(/\n→ Do not send it again blindly: look for it with `tenant-messaging list` first\./);
    // Searched for and not found (it never reached the service): not "run it with --reconcile" again.
    shell.sandbox.faults.add({ kind: 'drop', route: 'sendMessage', times: 1 });
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
    expect(got.stderr).toMatch(
      /\n→ Check the id: message log 424242 is not one of this tenant’s \(a log id is the id that send printed\)\.\n$/,
    );
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
      // The read is held (30 s) until after Ctrl-C, so that the signal aborts it; Ctrl-C once the
      // service holds it (the fault is counted when it starts holding).
      shell.sandbox.faults.clear();
      shell.sandbox.faults.add({ kind: 'latency', latencyMs: 30_000, route: 'getMessage', times: 1 });
      const held = shell.sandbox.faults.injected;
      const controller = new AbortController();
      const watch = setInterval(() => {
        if (shell.sandbox.faults.injected === held) return;
        clearInterval(watch);
        controller.abort(new Error('Interrupted (Ctrl-C)'));
      }, 5);
      const started = Date.now();
      const result = await run(args, { signal: controller.signal }).finally(() => clearInterval(watch));
      // Ended by the abort, not by the held read's answer 30 s later (a bound at the test's scale).
      expect(Date.now() - started, args.join(' ')).toBeLessThan(20_000);
      expect(controller.signal.aborted, args.join(' ')).toBe(true);
      if (args[0] === 'send') expect(result.code).toBe(5);
      else expect(result.error, args.join(' ')).toBeUndefined();
      expect(result.stderr, args.join(' ')).not.toMatch(/Error/);
    }
  });
});
