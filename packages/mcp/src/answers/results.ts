/**
 * What a tool answers: a short text for the model and, on success, `structuredContent` that its
 * output schema describes. Every failure is a tool result with `isError: true` and text a model can
 * act on, never a protocol error: the SDK's typed errors keep their messages, with the advice
 * hints.ts gives, in words a model or the person running the server can act on.
 */
import {
  APIError,
  AuthenticationError,
  MessagingError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ValidationError,
} from 'tenant-messaging';
import { plainIssues } from 'tenant-messaging-bin-kit';
import { explain } from './hints.js';

/** A `tools/call` result: text content, and `structuredContent` on success. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A tool's answer: `text` for the model, `structured` for the client (its output schema's shape).
 *
 * @example
 * ```ts
 * return success(`Message log ${log.id}: ${log.delivery_status}`, log)
 * ```
 */
export function success(text: string, structured: object): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent: { ...structured } };
}

/**
 * A tool error with `text`.
 *
 * @example
 * ```ts
 * return failure('Sending is off: start the server with --allow-send.')
 * ```
 */
export function failure(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * A refusal by this server's own rules (sending off, a limit, a declined message): its message is
 * the whole answer.
 *
 * @example
 * ```ts
 * throw new Refusal('This server may send 5 messages (--max-sends 5) and has sent them.')
 * ```
 */
export class Refusal extends Error {
  override readonly name = 'Refusal';
}

/**
 * The tool error for `error`, in words a model can act on.
 *
 * @example
 * ```ts
 * catch (error) { return errorResult(error) }
 * ```
 */
export function errorResult(error: unknown): ToolResult {
  if (error instanceof Refusal) return failure(error.message);
  if (error instanceof ValidationError) {
    return failure(
      `${issuesText(error)}\nRefused before any request to the API: fix these arguments and call the tool again.`,
    );
  }
  if (error instanceof NotFoundError) {
    const { message, advice } = explain(error);
    return failure(`Not found (404): ${message} ${advice ?? ''}`.trim());
  }
  if (error instanceof RateLimitError) {
    const wait = error.retryAfter === undefined ? 'a moment' : `${Math.ceil(error.retryAfter / 1000)} s`;
    return failure(`Rate limited (429): ${explain(error).message} Wait ${wait}, then call the tool again.`);
  }
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    // The model cannot fix a key: it can tell the person who runs the server.
    const { message, advice } = explain(error);
    return failure(
      `The API refused this server’s key (${error.status}): ${message} ${advice ?? ''} Tell the person running this server; calling again will not help.`.trim(),
    );
  }
  if (error instanceof APIError || error instanceof MessagingError) {
    const { message, advice } = explain(error);
    return failure(`${error.name}: ${message}${advice ? `\n${advice}` : ''}`);
  }
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return failure(`The tenant-messaging server failed on this call: ${what}`);
}

/**
 * A ValidationError's heading and issues, without the issues' hints (they name the SDK's options,
 * which a model cannot set), each field named by `names` when it has it.
 *
 * @example
 * ```ts
 * issuesText(error) // 'Invalid arguments for get_message:\n  - id: must be …'
 * ```
 */
export function issuesText(error: ValidationError, names: Readonly<Record<string, string>> = {}): string {
  return plainIssues(error, (path) => names[path.split('.')[0] ?? '']);
}
