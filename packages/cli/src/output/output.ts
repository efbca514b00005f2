import { paint } from 'tenant-messaging-bin-kit';

/** How data is printed: tables for people, one JSON document, or one JSON line per item. */
export type Format = 'human' | 'json' | 'ndjson';

/**
 * Where a command's results go. Data goes to stdout and nothing else does: progress, status
 * lines and errors go to stderr, so `--json | jq` always reads clean JSON.
 */
export interface Output {
  readonly format: Format;
  /** One result: the JSON value, or `human` for people. */
  value(value: unknown, human: () => string): void;
  /** A list: one JSON array, a JSON line each, or a table of `columns`. */
  list(items: readonly Record<string, unknown>[], columns: readonly string[]): void;
  /** A line for people on stderr (never with --json or --ndjson on stdout). */
  note(text: string): void;
  /** A status line on stderr that rewrites itself on a terminal (`\r`), or a plain line elsewhere. */
  status(text: string): void;
  /** Ends a status line. */
  endStatus(): void;
}

/**
 * The output of one run.
 *
 * @example
 * ```ts
 * const out = createOutput('human'); out.value(log, () => `sent: message log ${log.id}`)
 * ```
 */
export function createOutput(format: Format, stdout = process.stdout, stderr = process.stderr): Output {
  let statusOpen = false;
  const write = (text: string) => stdout.write(`${text}\n`);
  return {
    format,
    value(value, human) {
      write(format === 'human' ? human() : JSON.stringify(value, null, format === 'json' ? 2 : undefined));
    },
    list(items, columns) {
      if (format === 'json') write(JSON.stringify(items, null, 2));
      else if (format === 'ndjson') for (const item of items) write(JSON.stringify(item));
      else write(table(items, columns, stdout));
    },
    note(text) {
      stderr.write(`${text}\n`);
    },
    status(text) {
      if (stderr.isTTY) {
        stderr.write(`\r\x1b[2K${text}`);
        statusOpen = true;
      } else stderr.write(`${text}\n`);
    },
    endStatus() {
      if (statusOpen) stderr.write('\n');
      statusOpen = false;
    },
  };
}

/** Columns aligned with spaces, the header bold on a terminal that takes colour (colour.ts). */
function table(
  items: readonly Record<string, unknown>[],
  columns: readonly string[],
  stream: NodeJS.WriteStream,
): string {
  if (items.length === 0) return '(none)';
  const cell = (value: unknown) =>
    value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const rows = items.map((item) => columns.map((column) => cell(item[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((text, i) => text.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const header = paint('bold', line(columns), stream);
  return [header, ...rows.map(line)].join('\n');
}
