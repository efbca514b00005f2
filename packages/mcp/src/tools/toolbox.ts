/**
 * The tools of one server process and their state: the approvals, the send budget and what the
 * server learnt of the rate limit are shared by every session (stdio has one; `--http` may have
 * several). `call` never throws: every failure, hostile arguments included, is a tool error.
 */
import { type MessagingClient, ValidationError } from 'tenant-messaging';
import { QUOTE_MAX, quoteInput, redactDeep } from 'tenant-messaging-bin-kit';
import { type RecipientList, recipientList } from '../access/recipients.js';
import { shortenEchoes } from '../answers/quote.js';
import { errorResult, failure, type ToolResult } from '../answers/results.js';
import { issuesOf } from '../schemas/schemas.js';
import { type JsonSchema, readApiDocument, toolSchemas } from '../schemas/tool-schemas.js';
import type { Log } from '../shell/log.js';
import { Approvals } from '../state/approvals.js';
import { Drain } from '../state/drain.js';
import { SendBudget } from '../state/limits.js';
import { RateWatch } from '../state/timing.js';
import type { SendDeps } from './prepare-send.js';
import type { Confirm } from './send-message.js';
import { TOOLS, type ToolDefinition, type ToolHints } from './tools.js';

/** Options of {@link createToolbox}: what the command's flags set. */
export interface ToolboxOptions {
  /** The client every tool calls through (its credentials, retries and rate gate). */
  readonly client: MessagingClient;
  /**
   * Serve `prepare_send` and `send_message` (`--allow-send`).
   * @default false
   */
  readonly allowSend?: boolean | undefined;
  /**
   * Sends this process may make (`--max-sends`).
   * @default undefined (no cap)
   */
  readonly maxSends?: number | undefined;
  /**
   * The only recipients `prepare_send` accepts (`--allow-recipients`): a list as the flag takes it, or a checked one.
   * @default undefined (any recipient)
   * @example '+1555*,+447911123456'
   */
  readonly allowRecipients?: string | RecipientList | undefined;
  /**
   * How long an unused approval stays usable, in ms.
   * @default 900_000 (15 minutes)
   */
  readonly approvalTtlMs?: number | undefined;
  /**
   * The clock of the approvals and the rate watch.
   * @default Date.now
   */
  readonly now?: (() => number) | undefined;
  /**
   * The server's log (`serverLog(...).log`).
   * @default undefined (nothing logged)
   */
  readonly log?: Log | undefined;
  /**
   * Texts never shown in a result: the API key, the bearer token.
   * @default []
   */
  readonly secrets?: readonly string[] | undefined;
}

/** A tool as `tools/list` shows it. */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolHints & { title: string };
}

/** What a call is handed by the session it came from. */
export interface CallOptions {
  /** Aborted when the client cancels the call or the session closes. */
  readonly signal: AbortSignal;
  /** Asks the person, when the client supports elicitation. */
  readonly confirm?: Confirm | undefined;
}

/** The tools of one server process. */
export interface Toolbox {
  /** Whether the send tools are served. */
  readonly allowSend: boolean;
  /** The tools served, for `tools/list`. */
  list(): Promise<ListedTool[]>;
  /** Runs one tool; always a result, an error being one with `isError: true`. */
  call(name: string, args: unknown, options: CallOptions): Promise<ToolResult>;
  /**
   * Stops (drain.ts): new calls are refused, a pending confirmation ends unsent, the calls in
   * flight finish within `graceMs` and resolve with their results; resolves once they all did.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The tools of one server process, over `options.client`.
 *
 * @example
 * ```ts
 * const toolbox = createToolbox({ client, allowSend: true, maxSends: 5, allowRecipients: '+1555*' })
 * const server = createMcpServer(toolbox)
 * ```
 */
export function createToolbox(options: ToolboxOptions): Toolbox {
  const { client, log, secrets = [] } = options;
  const allowSend = options.allowSend === true;
  const given = options.allowRecipients;
  const send: SendDeps = {
    client,
    approvals: new Approvals({ ttlMs: options.approvalTtlMs, now: options.now }),
    budget: new SendBudget(options.maxSends),
    recipients: typeof given === 'string' ? recipientList(given) : given,
    watch: new RateWatch(options.now),
    secrets,
  };
  const served = TOOLS.filter((tool) => allowSend || !tool.sends);
  const drain = new Drain();
  let listed: Promise<ListedTool[]> | undefined;

  const run = async (tool: ToolDefinition, args: unknown, call: CallOptions): Promise<ToolResult> => {
    let parsed: unknown = args ?? {};
    if (tool.input) {
      const checked = tool.input.safeParse(parsed);
      if (!checked.success) throw new ValidationError(`Invalid arguments for ${tool.name}`, issuesOf(checked.error));
      parsed = checked.data;
    }
    return tool.run(parsed, { client, signal: call.signal, stopping: drain.signal, send, confirm: call.confirm });
  };

  return {
    allowSend,
    stop: (graceMs) => drain.stop(graceMs),
    list: () => {
      listed ??= (async () => {
        const schemas = toolSchemas(await readApiDocument());
        return served.map((tool) => {
          const { input, output } = schemas[tool.name] ?? { input: { type: 'object' }, output: { type: 'object' } };
          return {
            name: tool.name,
            title: tool.title,
            description: tool.description,
            inputSchema: input,
            outputSchema: output,
            annotations: { title: tool.title, ...tool.annotations },
          };
        });
      })();
      return listed;
    },
    async call(name, args, call) {
      const tool = TOOLS.find((candidate) => candidate.name === name);
      let result: ToolResult;
      if (tool === undefined) {
        result = failure(
          `There is no tool named ${quoteInput(String(name), QUOTE_MAX, secrets)}. Tools: ${served.map((t) => t.name).join(', ')}.`,
        );
      } else if (drain.stopping) {
        result = failure(
          `The server is stopping: ${name} was not run, and nothing was sent. Call it again once the server is back.`,
        );
      } else if (tool.sends && !allowSend) {
        result = failure(
          `Sending is off: this server is read-only (started without --allow-send). ${name} is not available; nothing was sent.`,
        );
      } else {
        result = await drain.run(
          async () => {
            try {
              return await run(tool, args, call);
            } catch (error) {
              send.watch.observe(error);
              if (drain.causedBy(error)) return failure(stoppedBefore(tool));
              if (!(error instanceof ValidationError)) log?.warn?.(`mcp: ${name} failed`, { error: String(error) });
              return errorResult(error);
            }
          },
          () => failure(stoppedBefore(tool)),
        );
      }
      log?.debug?.(
        `mcp: ${quoteInput(String(name), QUOTE_MAX, secrets)} ${result.isError ? 'answered an error' : 'answered'}`,
      );
      return shown(result.isError ? withShortEchoes(result, args, secrets) : result, secrets);
    },
  };
}

/** The answer of a call the stop cut short (or that the grace period ended before it finished). */
function stoppedBefore(tool: ToolDefinition): string {
  return tool.name === 'send_message'
    ? 'The server stopped before this send finished: its outcome is unknown, and it may have been sent. Do not send it again: once the server is back, look for it with list_messages (approvals end with the server).'
    : `The server stopped before ${tool.name} finished; nothing was sent. Call it again once the server is back.`;
}

/** A refusal with every long input of `args` it quotes shortened (whoever quoted it: this server, the SDK, zod). */
function withShortEchoes(result: ToolResult, args: unknown, secrets: readonly string[]): ToolResult {
  const content = result.content.map((part) => ({ ...part, text: shortenEchoes(part.text, args, secrets) }));
  return { ...result, content };
}

/**
 * `result` with every secret redacted from everything it carries: its text, its
 * `structuredContent` (a log's content, a page of logs), and any other member a tool adds. The one
 * place every tool's answer passes, so a new tool or field cannot leak what the text would not.
 */
function shown(result: ToolResult, secrets: readonly string[]): ToolResult {
  return redactDeep(result, secrets);
}
