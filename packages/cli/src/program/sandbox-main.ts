/**
 * `tenant-messaging sandbox [--port N] [--rate-limit N/s|N/min] [--sender-limit N] [--pair-interval MS]`
 * starts the sandbox on 127.0.0.1, prints each tenant's base URL and full key as one `export` line
 * and its keys by role, and stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
 */
import { parseArgs } from 'node:util';
import { type LaneLimits, type RateLimit, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { ENV } from 'tenant-messaging-bin-kit';
import { parseCount, parsePort } from '../shell/duration.js';
import { quote } from '../shell/secrets.js';

const USAGE =
  'Usage: tenant-messaging sandbox [--port N] [--rate-limit N/s | N/min] [--sender-limit N] [--pair-interval MS]\n' +
  '  --port           port on 127.0.0.1, 0 to 65535 in decimal digits (default: a free port)\n' +
  '  --rate-limit     requests per API key per second or minute before a 429 (default: off)\n' +
  '  --sender-limit   sends per second per sender number before a 429 (default: off)\n' +
  '  --pair-interval  ms between two sends of one sender number to one recipient, or a 429 (default: off)';

/** `100/s` -> `{ perSecond: 100 }`, `60/min` or `60` -> `{ perMinute: 60 }`. */
function parseRateLimit(text: string): RateLimit {
  const match = /^(\d+)(?:\/(s|sec|second|m|min|minute))?$/.exec(text.trim());
  const n = Number(match?.[1]);
  if (!match || !(n >= 1)) throw new Error(`--rate-limit must look like 100/s or 60/min, got ${quote(text)}`);
  return match[2]?.startsWith('s') ? { perSecond: n } : { perMinute: n };
}

/** `1 send`, `2 sends`. */
const sends = (n: number) => `${n} send${n === 1 ? '' : 's'}`;

/** How long a stop waits for the requests in flight to be answered before it cuts them. */
const DRAIN_MS = 10_000;

/**
 * One line of a refused argument, naming the flag first: node's parseArgs writes three lines for
 * a value that starts with a dash (`--port -1`).
 */
function argsErrorLine(error: Error & { code?: string }): string {
  const flag = /'(--[\w-]+)'/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag !== undefined)
    return `${flag} needs a value, and one that starts with a dash goes after an =, as in ${flag}=-1.`;
  return error.message.replace(/\s*\n\s*/g, ' ');
}

/** A usage error of the command: one line on stderr, exit code 2. */
function usageError(message: string): void {
  // A sentence each: parseArgs' and parsePort's messages end without a full stop.
  const sentence = /[.!?]$/.test(message) ? message : `${message}.`;
  console.error(`tenant-messaging sandbox: ${sentence} See \`tenant-messaging sandbox --help\`.`);
  process.exitCode = 2;
}

/**
 * Runs the sandbox command with `args` (the words after the command's name).
 *
 * @example
 * ```ts
 * await sandboxMain(['--port', '8080', '--rate-limit', '50/s'])
 * ```
 */
export async function sandboxMain(args: readonly string[]): Promise<void> {
  let port = 0;
  let rateLimit: RateLimit | null = null;
  let perSender: LaneLimits['perSender'];
  let perPair: LaneLimits['perPair'];
  try {
    const { values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        'rate-limit': { type: 'string' },
        'sender-limit': { type: 'string' },
        'pair-interval': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      console.log(USAGE);
      return;
    }
    if (values['rate-limit'] !== undefined) rateLimit = parseRateLimit(values['rate-limit']);
    if (values['sender-limit'] !== undefined) {
      perSender = { perSecond: parseCount(values['sender-limit'], '--sender-limit') };
    }
    if (values['pair-interval'] !== undefined) {
      perPair = { minInterval: parseCount(values['pair-interval'], '--pair-interval') };
    }
    if (values.port !== undefined) port = parsePort(values.port, '--port');
  } catch (error) {
    return usageError(argsErrorLine(error as Error & { code?: string }));
  }

  // Handlers first: a signal that arrives while the server starts must still stop it cleanly.
  let stopSignal: string | undefined;
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
  // The command ends once the sandbox has closed, not once it listens: the bin's own stop handling
  // (main.ts) would otherwise end the process at the signal, cutting the requests in flight.
  let closed: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const stop = (signal: string) => {
    stopSignal = signal;
    console.log(`\n${signal}: stopping the sandbox.`);
    // The requests in flight are answered first (a client mid-send gets its answer, not a reset),
    // for DRAIN_MS at most.
    void sandbox?.close({ drainMs: DRAIN_MS }).then(closed);
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  try {
    sandbox = await startSandbox({ port, rateLimit, laneLimits: { perSender, perPair } });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      return usageError(
        `--port ${port}: the port is in use on 127.0.0.1 (another sandbox or server); choose another, or --port 0 for a free one.`,
      );
    }
    if (code === 'EACCES')
      return usageError(
        `--port ${port}: this user may not listen on it; choose a port above 1023, or --port 0 for a free one.`,
      );
    throw error;
  }
  if (stopSignal) {
    await sandbox.close();
    return;
  }
  const limit =
    rateLimit === null
      ? 'off'
      : 'perSecond' in rateLimit
        ? `${rateLimit.perSecond} per second per key`
        : `${rateLimit.perMinute} per minute per key`;
  const lanes = [
    perSender && `${sends(perSender.perSecond)} per second per sender number`,
    perPair && `1 send per ${perPair.minInterval} ms per sender number and recipient`,
  ].filter(Boolean);
  const lines = [
    `Tenant Messaging sandbox listening on ${sandbox.url}`,
    `Rate limit: ${limit}`,
    `Lanes: ${lanes.length > 0 ? lanes.join('; ') : 'off'}`,
    '',
  ];
  for (const tenant of Object.values(sandbox.tenants)) {
    // One line to paste into a shell: the base URL and the key of every role (`full`).
    lines.push(
      `${tenant.name} (${tenant.slug})`,
      `  export ${ENV.baseUrl}=${tenant.baseUrl} ${ENV.apiKey}=${tenant.keys.full}`,
    );
    for (const [role, key] of Object.entries(tenant.keys)) lines.push(`  ${role.padEnd(9)} ${key}`);
    for (const n of tenant.senderNumbers) lines.push(`  sender #${n.id} ${n.phone} (${n.status})`);
    lines.push('');
  }
  lines.push(
    `Recipients: ${SANDBOX_PHONES.reads} reads, ${SANDBOX_PHONES.neverReads} never reads, ` +
      `${SANDBOX_PHONES.neverDelivered} never delivered, ${SANDBOX_PHONES.unreachable} unreachable.`,
    'Press Ctrl-C to stop.',
  );
  console.log(lines.join('\n'));
  await stopped;
}
