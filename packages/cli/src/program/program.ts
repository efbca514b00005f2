import { Command, Option } from 'commander';
import { lookup, read, request, senders } from '../commands/account.js';
import { type DemoFlags, demo } from '../commands/demo.js';
import { type ListenFlags, listen } from '../commands/listen.js';
import { type Context, follow, get, list, logIdOf, send } from '../commands/messages.js';
import { sendMany } from '../commands/send-many.js';
import type { SendManyFlags } from '../commands/send-many-flags.js';
import { type TailFlags, tail } from '../commands/tail.js';
import { helpHint, located } from '../output/hints.js';
import { createOutput, type Format } from '../output/output.js';
import { clientFrom } from '../shell/credentials.js';
import { parseDuration } from '../shell/duration.js';
import { UsageError } from '../shell/exit-codes.js';
import { quote } from '../shell/secrets.js';
import { VERSION } from '../version.js';
import { DEMO_HELP, LISTEN_HELP, ROOT_HELP, SEND_MANY_HELP, TAIL_HELP } from './help-texts.js';
import { refuseUnknownFirst } from './unknown-first.js';

/** The options every API command takes. */
interface GlobalFlags {
  baseUrl?: string;
  apiKeyFile?: string;
  apiKey?: string;
  verbose?: boolean;
  json?: boolean;
  ndjson?: boolean;
}

/**
 * The `tenant-messaging` command line: every command a thin layer over the public SDK.
 * `signal` is aborted by Ctrl-C; `onClient` hands each client made to the caller (to close it).
 *
 * @example
 * ```ts
 * await program(controller.signal).parseAsync(process.argv)
 * ```
 */
export function program(signal: AbortSignal, sandbox: (args: readonly string[]) => Promise<void>): Command {
  const root = new Command('tenant-messaging')
    .description('Send, follow and check Tenant Messaging messages from a shell.')
    // What bug reports and MCP clients ask first: the package's version on stdout, exit 0.
    .version(VERSION, '-V, --version', 'print the version')
    .option('--base-url <url>', 'the tenant URL (default: TENANT_MESSAGING_BASE_URL)')
    .option('--api-key-file <path>', 'a file holding the API key (default: TENANT_MESSAGING_API_KEY)')
    .addOption(new Option('--api-key <key>').hideHelp())
    .option('--verbose', 'log every request and retry to stderr (never the API key)')
    .option('--json', 'print one JSON document')
    .option('--ndjson', 'print one JSON line per item')
    .addHelpText('after', ROOT_HELP)
    .showHelpAfterError(`→ ${helpHint()}`)
    // Set before the commands are added, so that they inherit them: a usage error throws a
    // CommanderError for main.ts to turn into exit code 2, instead of exiting with commander's 1;
    // each command's help lists the global options too (the credentials' flags); and commander's
    // messages name a flag without its value's syntax (`'--from'`, not `'--from <phone|id>'`).
    .exitOverride()
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeErr: (text) => process.stderr.write(text),
      outputError: (text, write) => write(oneLine(shortenQuoted(withoutValueSyntax(text)))),
    });

  /**
   * Runs a command's action. The abort of a Ctrl-C (the signal's own reason, thrown by the read or
   * wait it cut) ends it quietly: main.ts has said that it stops, and sets the exit code; reported,
   * it printed a stray `Error: Interrupted (Ctrl-C)`. Any other error leaves tagged with the
   * command and its options, for the report's words and hint (hints.ts).
   */
  const guarded = async (command: Command, action: () => Promise<void>): Promise<void> => {
    try {
      await action();
    } catch (error) {
      if (signal.aborted && error === signal.reason) return;
      throw located(error, { command: command.name(), flags: command.opts(), globals: root.opts() });
    }
  };

  /** Runs `body` with a client and an output built from the global flags. */
  const withContext =
    <A extends unknown[]>(body: (...args: [...A, Context]) => Promise<unknown>) =>
    (...args: A) =>
      // Commander passes the command itself last, after the arguments and the options.
      guarded(args.at(-1) as Command, async () => {
        const flags = root.opts<GlobalFlags>();
        const format: Format = flags.ndjson ? 'ndjson' : flags.json ? 'json' : 'human';
        const client = await clientFrom(flags);
        try {
          // A command that finished with something to report (send-many's failed rows) says its code.
          const code = await body(...args, { client, out: createOutput(format), signal });
          if (typeof code === 'number') process.exitCode = code;
        } finally {
          await client.close();
        }
      });

  root
    .command('send')
    .description('send one message')
    .requiredOption('--from <phone|id>', "the sender number's phone, or its id")
    .requiredOption('--to <phone>', "the recipient's phone")
    .option('--text <content>', 'a text message')
    .option('--image <path>', 'an image file')
    .option('--voice <path>', 'a voice file')
    .option('--document <path>', 'a document file')
    .option('--caption <text>', 'the caption of a media message')
    .option('--wait [status]', 'wait until delivered (or read)')
    .option('--timeout <duration>', 'how long --wait waits', '60s')
    .option('--interval <duration>', 'the first wait between polls of --wait', '2s')
    .option('--reconcile', 'if the outcome is unknown, search the message logs instead of failing')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tenant-messaging send --from +15550001001 --to +15557654321 --text "Your code is 1234" --wait\n  $ tenant-messaging send --from 1 --to +15557654321 --document ./receipt.pdf --caption "Your receipt" --json',
    )
    .action(withContext((flags: Parameters<typeof send>[0], _cmd: Command, ctx: Context) => send(flags, ctx)));

  root
    .command('send-many')
    .description('send every row of a CSV or NDJSON file, with a progress bar')
    .requiredOption(
      '--file <path>',
      'a CSV (UTF-8 or UTF-16) or NDJSON file: to, text | image | voice | document, optional from, caption',
    )
    .option('--from <phone|id>', 'the sender of rows without a from column')
    .option('--concurrency <n>', 'sends in flight at once', '4')
    .option('--rate <n/s>', 'requests per second at most (e.g. 20/s or 600/min)')
    .option('--track [status]', 'then follow the sent messages until delivered (or read)')
    .option('--track-timeout <duration>', 'how long each sent message may take to get there', '10m')
    .option('--force', 'send the file whole although an interrupted run of it left rows sent (they go twice)')
    .addHelpText('after', SEND_MANY_HELP)
    .action(withContext((flags: SendManyFlags, _cmd: Command, ctx: Context) => sendMany(flags, ctx)));

  root
    .command('tail')
    .description('the newest logs; with --follow, new logs and status changes as they happen, until Ctrl-C')
    .option('-f, --follow', 'keep reading')
    .option('--interval <duration>', 'between two reads of the newest logs', '2s')
    .addHelpText('after', TAIL_HELP)
    .action(withContext((flags: TailFlags, _cmd: Command, ctx: Context) => tail(flags, ctx)));

  root
    .command('listen')
    .description('forward new logs and status changes to a URL as signed webhook events, until Ctrl-C')
    .requiredOption('--forward-to <url>', 'where each event is POSTed: https, or http on loopback')
    .option(
      '--secret-file <path>',
      'a file holding the whsec_ signing secret (default: TENANT_MESSAGING_WEBHOOK_SECRET)',
    )
    .addOption(new Option('--secret <secret>').hideHelp())
    .option('--events <types>', 'only these event types, comma-separated (e.g. message.delivered,message.read)')
    .option('--interval <duration>', 'between two reads of the newest logs', '2s')
    .option('--allow-insecure-http', 'allow plain http to a host other than loopback')
    .addHelpText('after', LISTEN_HELP)
    .action(withContext((flags: ListenFlags, _cmd: Command, ctx: Context) => listen(flags, ctx)));

  root
    .command('get <log-id>')
    .description('show one message log')
    .addHelpText('after', '\nExample:\n  $ tenant-messaging get 42 --json')
    .action(withContext((id: string, _flags: object, _cmd: Command, ctx: Context) => get(id, ctx)));

  root
    .command('wait <log-id>')
    .description('wait until a message is delivered (or read), with a live status line')
    .addOption(new Option('--until <status>', 'delivered or read').choices(['delivered', 'read']).default('delivered'))
    .option('--timeout <duration>', 'how long to wait', '5m')
    .option('--interval <duration>', 'the first wait between polls (later ones back off)', '2s')
    .addHelpText('after', '\nExample:\n  $ tenant-messaging wait 42 --until read --timeout 10m')
    .action(
      withContext(
        (
          id: string,
          flags: { until: 'delivered' | 'read'; timeout: string; interval: string },
          _cmd: Command,
          ctx: Context,
        ) =>
          follow(
            logIdOf(id),
            flags.until,
            {
              timeout: parseDuration(flags.timeout, '--timeout'),
              interval: parseDuration(flags.interval, '--interval'),
            },
            ctx,
          ),
      ),
    );

  root
    .command('list')
    .description('list the newest message logs')
    .addOption(
      new Option('--status <status>', 'only logs of this delivery status').choices([
        'sent',
        'delivered',
        'read',
        'unknown',
      ]),
    )
    .option('--limit <n>', 'how many logs at most', '20')
    .addHelpText('after', '\nExample:\n  $ tenant-messaging list --status unknown --limit 50 --ndjson')
    .action(withContext((flags: { status?: string; limit: string }, _cmd: Command, ctx: Context) => list(flags, ctx)));

  for (const what of ['me', 'usage', 'subscription'] as const) {
    root
      .command(what)
      .description(`show the tenant's ${what === 'me' ? 'identity' : what}`)
      .action(withContext((_flags: object, _cmd: Command, ctx: Context) => read(what, ctx)));
  }

  root
    .command('senders')
    .description("list the tenant's sender numbers")
    .action(withContext((_flags: object, _cmd: Command, ctx: Context) => senders(ctx)));

  root
    .command('lookup <phone>')
    .description('check whether a recipient can receive messages')
    .requiredOption('--from <phone>', "the sender number's phone")
    .addHelpText('after', '\nExample:\n  $ tenant-messaging lookup +15557654321 --from +15550001001')
    .action(
      withContext((phone: string, flags: { from: string }, _cmd: Command, ctx: Context) => lookup(phone, flags, ctx)),
    );

  root
    .command('request <method> <path>')
    .description('any endpoint the commands do not cover (the path is below /api/v1)')
    .option('--data <json>', 'a JSON body')
    .addHelpText('after', '\nExample:\n  $ tenant-messaging request GET /sender-numbers')
    .action(
      withContext((method: string, path: string, flags: { data?: string }, _cmd: Command, ctx: Context) =>
        request(method, path, flags, ctx),
      ),
    );

  // The MCP server is its own package now: whoever still types `tenant-messaging mcp` learns where.
  root
    .command('mcp', { hidden: true })
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]')
    .action(() => {
      throw new UsageError(
        'the MCP server is its own package now: run `npx -y tenant-messaging-mcp` with the same flags (--allow-send, --max-sends, --allow-recipients, --http)',
      );
    });

  root
    .command('demo')
    .description("run the SDK's whole story against a local sandbox (or, with credentials, your tenant)")
    .option('--to <phone>', 'the recipient (required against a real tenant)')
    .addHelpText('after', DEMO_HELP)
    .action((flags: DemoFlags, command: Command) =>
      guarded(command, async () => {
        // Once a message was sent the demo says its code: a stop signal after it must not say 128 + n.
        const code = await demo(flags, root.opts<GlobalFlags>(), signal);
        if (code !== undefined) process.exitCode = code;
      }),
    );

  root
    .command('sandbox')
    .description('start the local sandbox of the API on 127.0.0.1')
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]')
    .action((args: string[]) => sandbox(args));

  root.hook('preSubcommand', (self, command) => refuseUnknownFirst(self, command, self.args.slice(1)));
  // After a usage error, the help of the command that was run, by its name.
  for (const command of root.commands) command.showHelpAfterError(`→ ${helpHint(command.name())}`);
  return root;
}

/**
 * Commander's error line with each value it quotes from the command line (`unknown command
 * 'x...'`, `argument 'x...' is invalid`) quoted as every refusal quotes input: shortened when long.
 */
function shortenQuoted(text: string): string {
  return text.replace(/'([^']*)'/g, (_whole, inner: string) => quote(inner));
}

/**
 * Commander's error line with each option named by its flags alone: `required option '--from'
 * not specified`, not `'--from <phone|id>'` (the help, named on the next line, shows the syntax).
 */
function withoutValueSyntax(text: string): string {
  return text.replace(/'((?:-\w, )?--[\w-]+) (?:<[^>']*>|\[[^\]']*\])'/g, "'$1'");
}

/** Commander's "Did you mean" on the error's own line: a usage error is one line, then the help hint. */
function oneLine(text: string): string {
  return text.replace(/\n\(Did you mean (.+)\?\)/, ' (did you mean $1?)');
}
