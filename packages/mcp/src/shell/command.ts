/**
 * The command line of `tenant-messaging-mcp`: its flags (node:util's parseArgs), its help and its
 * usage errors. Loads nothing but node:util: `--help`, `--version` and a bad flag answer before
 * the SDK or the MCP SDK is loaded.
 */
import { parseArgs } from 'node:util';
import { type CredentialFlags, quoteInput, UsageError } from 'tenant-messaging-bin-kit';
import { EXIT_BOUND_MS } from './exit.js';

/** The environment variable that holds the bearer token of `--http`. */
export const TOKEN_ENV = 'TENANT_MESSAGING_MCP_TOKEN';

/** The flags of the server itself. */
export interface McpFlags {
  /** `--http 127.0.0.1:<port>`: Streamable HTTP on loopback instead of stdio. */
  readonly http?: string | undefined;
  /** `--allow-send`: list and serve `prepare_send` and `send_message`. */
  readonly allowSend?: boolean | undefined;
  /** `--max-sends <n>`: sends per server process. */
  readonly maxSends?: string | undefined;
  /** `--allow-recipients <patterns>`: the only recipients `prepare_send` accepts. */
  readonly allowRecipients?: string | undefined;
}

/** What the command line asks for. */
export type CommandLine =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'serve'; readonly flags: McpFlags; readonly credentials: CredentialFlags };

/** Each flag: its parseArgs type, the placeholder of its value, and its line in the help (none: hidden). */
const FLAGS = {
  'allow-send': { type: 'boolean', help: 'serve prepare_send and send_message: send only what a person approved' },
  'max-sends': { type: 'string', value: '<n>', help: 'sends this server may make in its life' },
  'allow-recipients': {
    type: 'string',
    value: '<patterns>',
    help: 'the only recipients, comma-separated, * for any digits (e.g. +1555*)',
  },
  http: {
    type: 'string',
    value: '<host:port>',
    help: `serve Streamable HTTP on loopback, not stdio (needs ${TOKEN_ENV})`,
  },
  'base-url': { type: 'string', value: '<url>', help: 'the tenant URL (default: TENANT_MESSAGING_BASE_URL)' },
  'api-key-file': {
    type: 'string',
    value: '<path>',
    help: 'a file holding the API key (default: TENANT_MESSAGING_API_KEY)',
  },
  'api-key': { type: 'string', value: '<key>' },
  verbose: { type: 'boolean', help: 'log every request and retry to stderr (never the API key)' },
  version: { type: 'boolean', short: 'V', help: 'print the version' },
  help: { type: 'boolean', short: 'h', help: 'print this help' },
} as const satisfies Record<
  string,
  { type: 'boolean' | 'string'; short?: string; value?: string; help?: string | undefined }
>;

type Flag = keyof typeof FLAGS;

/** The one-line synopsis, shown after a usage error. */
export const USAGE =
  'Usage: tenant-messaging-mcp [--allow-send] [--max-sends <n>] [--allow-recipients <patterns>] [--http <host:port>] [--base-url <url>] [--api-key-file <path>] [--verbose]';

/** The hint after a usage error. */
export const HELP_HINT = 'See `tenant-messaging-mcp --help`.';

/**
 * What `argv` (without node and the script) asks for; a UsageError naming the flag otherwise.
 *
 * @example
 * ```ts
 * parseCommandLine(['--allow-send', '--max-sends', '5']) // { kind: 'serve', flags: { allowSend: true, maxSends: '5' }, ... }
 * ```
 */
export function parseCommandLine(argv: readonly string[], secrets: readonly string[] = []): CommandLine {
  // Not strict: parseArgs's own errors speak of positionals and `--`; the tokens are checked here.
  const { values, tokens } = parseArgs({ args: [...argv], options: FLAGS, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional') {
      // Quoted back only when it looks like a word (`mcp`, from the old command): a stray
      // argument may be a key pasted in the wrong place, and stderr is often logged.
      const shown = /^[a-z][a-z-]{0,19}$/.test(token.value) ? `'${token.value}'` : '(not shown)';
      throw usage(`unexpected argument ${shown}: tenant-messaging-mcp takes flags only`);
    }
    if (token.kind !== 'option') continue;
    const flag = FLAGS[token.name as Flag] as (typeof FLAGS)[Flag] | undefined;
    if (flag === undefined) {
      const near = nearest(token.name);
      throw usage(
        `unknown option ${quoteInput(token.rawName, undefined, secrets)}${near ? ` (did you mean --${near}?)` : ''}`,
      );
    }
    if (flag.type === 'boolean' && token.inlineValue) throw usage(`option '${token.rawName}' takes no value`);
    if (flag.type === 'string' && (token.value === undefined || (!token.inlineValue && token.value.startsWith('--')))) {
      throw usage(`option '${token.rawName} ${'value' in flag ? flag.value : ''}' argument missing`);
    }
  }
  const given = values as Partial<Record<Flag, string | boolean>>;
  if (given.help) return { kind: 'help' };
  if (given.version) return { kind: 'version' };
  const text = (flag: Flag) => given[flag] as string | undefined;
  return {
    kind: 'serve',
    flags: {
      http: text('http'),
      allowSend: given['allow-send'] === true,
      maxSends: text('max-sends'),
      allowRecipients: text('allow-recipients'),
    },
    credentials: {
      baseUrl: text('base-url'),
      apiKeyFile: text('api-key-file'),
      apiKey: text('api-key'),
      verbose: given.verbose === true,
    },
  };
}

const usage = (problem: string) => new UsageError(`${problem}\n${USAGE}`);

/** The flag `name` was probably meant to be: one edit away, or a prefix of it. */
function nearest(name: string): string | undefined {
  const shown = (Object.keys(FLAGS) as Flag[]).filter((flag) => 'help' in FLAGS[flag]);
  return (
    shown.find((flag) => flag.startsWith(name) && name.length > 2) ?? shown.find((flag) => distance(flag, name) <= 2)
  );
}

/** Levenshtein distance, for the suggestion. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

/**
 * The help of `--help`.
 *
 * @example
 * ```ts
 * process.stdout.write(help())
 * ```
 */
export function help(): string {
  const rows = (Object.entries(FLAGS) as [Flag, (typeof FLAGS)[Flag]][])
    .filter(([, flag]) => 'help' in flag)
    .map(([name, flag]) => {
      const short = 'short' in flag ? `-${flag.short}, ` : '    ';
      return [`${short}--${name}${'value' in flag ? ` ${flag.value}` : ''}`, 'help' in flag ? flag.help : ''] as const;
    });
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return `${USAGE}

Serves the Tenant Messaging API to an AI assistant (Claude Desktop, Claude Code, Cursor, VS Code)
as MCP tools, over stdio, or Streamable HTTP on loopback with --http. Stdout carries MCP messages
only; the log goes to stderr (TENANT_MESSAGING_LOG: debug, info, warn, error or off).

Options:
${rows.map(([left, text]) => `  ${left.padEnd(width)}${text}`).join('\n')}

Read-only unless --allow-send: get_message, list_messages, wait_for_delivery, lookup_contact,
list_sender_numbers, get_usage. With --allow-send, prepare_send checks a text message and returns
a preview and an approval (nothing is sent); send_message sends exactly that message, once, after
the person approved it (asked again through the client, when it supports elicitation). Approvals
expire after 15 minutes.

--http needs ${TOKEN_ENV}: every request must carry "Authorization: Bearer" and the
token, and only loopback hosts may be named.

Credentials: TENANT_MESSAGING_BASE_URL and TENANT_MESSAGING_API_KEY, or --base-url and
--api-key-file <path>. A key on the command line (--api-key) is refused: ps and shell history show it.
On SIGINT, SIGTERM or SIGHUP it takes no new call, lets the calls in flight finish and sends
their results, then exits within ${EXIT_BOUND_MS / 1000} s (a second signal exits at once).
Exit codes: 0 the client went away, 1 the server failed, 2 bad usage (nothing started), 128 + the
signal when stopped (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).

Examples:
  $ npx -y tenant-messaging-mcp
  $ npx -y tenant-messaging-mcp --allow-send --max-sends 20 --allow-recipients '+1555*,+447911123456'
  $ ${TOKEN_ENV}=... npx -y tenant-messaging-mcp --http 127.0.0.1:8808
Each client's configuration: https://www.npmjs.com/package/tenant-messaging-mcp
`;
}
