import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessagingClient } from 'tenant-messaging';
import { type Credentials, ENV } from 'tenant-messaging-bin-kit';
import { tellStory } from '../demo/demo-story.js';
import { receiptPng } from '../demo/receipt-png.js';
import { type CredentialOptions, clientFrom, credentialsOf, loggingOf } from '../shell/credentials.js';
import { EXIT, UsageError } from '../shell/exit-codes.js';

export interface DemoFlags {
  /** The recipient: required against a real tenant, a sandbox phone that reads its messages otherwise. */
  readonly to?: string;
}

/** The global options the demo reads: the credentials, and the output flags it refuses. */
export interface DemoGlobals extends CredentialOptions {
  readonly json?: boolean | undefined;
  readonly ndjson?: boolean | undefined;
}

/** The example `--to` of the messages below (the sandbox's "reads" phone would do nothing on a real tenant). */
const TO_EXAMPLE = 'tenant-messaging demo --to +15551234567';

/**
 * Whether the demo runs against a tenant of the user's: the flags name one, or both environment
 * variables do. With neither it runs against a sandbox of its own, as `npm run demo` always did.
 */
export function isConfigured(globals: CredentialOptions, env: NodeJS.ProcessEnv = process.env): boolean {
  return (
    globals.baseUrl !== undefined ||
    globals.apiKeyFile !== undefined ||
    globals.apiKey !== undefined ||
    Boolean(env.TENANT_MESSAGING_BASE_URL && env.TENANT_MESSAGING_API_KEY)
  );
}

/**
 * Whether the credentials given are a sandbox's: a test key (`tm_test_`, the sandbox's keys) for a
 * base URL on loopback. A real tenant is never on loopback, so nothing real can be sent to it.
 *
 * @example
 * ```ts
 * await isSandbox({}, { TENANT_MESSAGING_BASE_URL: 'http://127.0.0.1:4010/t/acme', TENANT_MESSAGING_API_KEY: 'tm_test_acme_full' }) // true
 * ```
 */
export async function isSandbox(globals: CredentialOptions, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  let credentials: Credentials;
  try {
    credentials = await credentialsOf(globals, env);
  } catch {
    return false; // refused or missing: the client made from them says why
  }
  const key = credentials.apiKey ?? env[ENV.apiKey]?.trim() ?? '';
  const host = URL.parse(credentials.baseUrl ?? env[ENV.baseUrl]?.trim() ?? '')?.hostname;
  return key.startsWith('tm_test_') && host !== undefined && LOOPBACK.test(host);
}

/** The host names of this machine, as a URL's hostname gives them. */
const LOOPBACK = /^(?:localhost|\[::1\]|127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/**
 * `demo`: the SDK's whole story (demo-story.ts). With no credentials it starts the sandbox in this
 * process (loaded only here) and runs against it; with credentials it runs against that tenant
 * and sends only to `--to`, refusing without it (exit code 2), since a real message goes out.
 * The image step streams a PNG made here into a temporary folder, removed afterwards.
 * Returns the exit code once a message was sent: 0, or 5 ("sent") if a stop signal came after the
 * story's last step (its cleanup); undefined when nothing was sent, for the signal's 128 + n.
 *
 * @example
 * ```ts
 * await demo({}, root.opts(), signal) // against a sandbox started in this process
 * ```
 */
export async function demo(flags: DemoFlags, globals: DemoGlobals, signal: AbortSignal): Promise<number | undefined> {
  if (globals.json || globals.ndjson) {
    throw new UsageError(
      `demo prints a story for people: --${globals.json ? 'json' : 'ndjson'} does not apply to it. Run the commands it shows (me, senders, send, wait, list, usage) with --json instead.`,
    );
  }
  const started = performance.now();
  const live = isConfigured(globals);
  // A sandbox of the user's (`tenant-messaging sandbox`, its test key on loopback) sends nothing
  // real: its phone that reads its messages is the recipient, as in the demo's own sandbox.
  const sandboxed = live && (await isSandbox(globals));
  if (live && !sandboxed && flags.to === undefined) {
    throw new UsageError(
      `against a real tenant the demo sends real messages, and only to a recipient you name with --to: ${TO_EXAMPLE}`,
    );
  }
  if (flags.to !== undefined && flags.to.trim() === '') throw new UsageError(`--to needs a phone: ${TO_EXAMPLE}`);
  // Before the folder is made: a Ctrl-C while the bin loaded starts nothing.
  signal.throwIfAborted();

  const dir = await mkdtemp(join(tmpdir(), 'tenant-messaging-demo-'));
  let client: MessagingClient | undefined;
  let closeSandbox: (() => Promise<void>) | undefined;
  let sent: readonly number[] = [];
  try {
    const imagePath = join(dir, 'receipt.png');
    await writeFile(imagePath, receiptPng());
    if (live) {
      client = await clientFrom(globals);
      const recipient = flags.to ?? (await import('tenant-messaging/sandbox')).SANDBOX_PHONES.reads;
      sent = await tellStory({
        client,
        recipient,
        imagePath,
        sandboxUrl: undefined,
        keyWithoutUsage: undefined,
        signal,
        started,
      });
    } else {
      const { startSandbox, SANDBOX_PHONES } = await import('tenant-messaging/sandbox');
      signal.throwIfAborted();
      const sandbox = await startSandbox();
      closeSandbox = () => sandbox.close();
      const tenant = sandbox.tenants.acme;
      client = new MessagingClient({
        baseUrl: tenant.baseUrl,
        apiKey: tenant.keys.full,
        ...loggingOf(globals.verbose),
      });
      sent = await tellStory({
        client,
        recipient: flags.to ?? SANDBOX_PHONES.reads,
        imagePath,
        sandboxUrl: sandbox.url,
        keyWithoutUsage: tenant.keys.noUsage,
        signal,
        started,
        sandboxLanes: {
          set: (minInterval) => sandbox.setLaneLimits(minInterval === null ? null : { perPair: { minInterval } }),
          other: SANDBOX_PHONES.neverReads,
        },
      });
    }
  } finally {
    await client?.close();
    await closeSandbox?.();
    await rm(dir, { recursive: true, force: true });
  }
  // A stop signal during the cleanup, after the last step: the messages were sent all the same.
  if (sent.length === 0) return undefined;
  return signal.aborted ? EXIT.sent : EXIT.ok;
}
