import type { JsonObject, MessagingClient } from 'tenant-messaging';
import { MessagingError, mediaFromPath } from 'tenant-messaging';
import { paint as paintOn, type StyleFormat } from 'tenant-messaging-bin-kit';
import { SentThenError } from '../shell/sent-then-error.js';
import { DEMO_MIN_INTERVAL, pacingStep } from './demo-pacing.js';

/** Where the story runs and with what: the command (commands/demo.ts) decides, the story only tells. */
export interface DemoSetting {
  readonly client: MessagingClient;
  /** Who is sent to: `--to`, or a sandbox phone that reads its messages. */
  readonly recipient: string;
  /** The image file the image step streams. */
  readonly imagePath: string;
  /** The sandbox's URL; undefined against a real tenant. */
  readonly sandboxUrl: string | undefined;
  /** A key of the same tenant without `usage.read`, for the deliberate error (the sandbox has one). */
  readonly keyWithoutUsage: string | undefined;
  /** Aborted by Ctrl-C: the story stops before its next step, or at once in a read or a wait. */
  readonly signal: AbortSignal;
  /** When the command started, for the closing `done in`. */
  readonly started: number;
  /**
   * The sandbox's lanes, for the pacing step (`sandbox.setLaneLimits`), and a second recipient;
   * undefined against a real tenant, where the step is left out.
   */
  readonly sandboxLanes?: { readonly set: (minInterval: number | null) => void; readonly other: string } | undefined;
}

/**
 * Tells the demo's story on stdout: who am I, subscription, sender numbers, a lookup, a text, an
 * image with upload progress, the wait until read (a live status line on a terminal), the latest
 * logs, usage, and one deliberate error, printed as a program would see it. Returns the log ids
 * of the messages it sent (the command's exit code depends on them).
 *
 * Why the sends do not take the signal: an aborted POST may have reached the service with nobody
 * told (the `send` command does the same); Ctrl-C stops the story once a send has answered.
 *
 * @example
 * ```ts
 * await tellStory({ client, recipient, imagePath, sandboxUrl: sandbox.url, keyWithoutUsage, signal, started })
 * ```
 */
export async function tellStory(
  setting: DemoSetting,
  stdout: NodeJS.WriteStream = process.stdout,
): Promise<readonly number[]> {
  const { client, recipient, signal } = setting;
  const live = setting.sandboxUrl === undefined;
  const print = printer(stdout);
  const { show, progress } = print;
  /** The log ids of the messages sent so far: an error after them ends the demo with "sent" (5). */
  const sent: number[] = [];
  try {
    stdout.write(
      `${print.bold('tenant-messaging demo')} ${print.dim(live ? `against ${client.baseUrl}` : `against the local sandbox at ${setting.sandboxUrl}`)}\n`,
    );

    print.step('Who am I', signal);
    const me = await client.me({ signal });
    show('tenant', `${field(me, 'tenant.name') ?? '?'} (${field(me, 'tenant.slug') ?? '?'})`);
    show('key scopes', field(me, 'api_key.scopes') ?? '(not reported)');

    print.step('Subscription', signal);
    const subscription = await client.subscription({ signal });
    show('status', subscription.status ?? '(not reported)');
    show('plan', field(subscription, 'plan.name') ?? '(not reported)');

    print.step('Sender numbers', signal);
    const senders = await client.senderNumbers.list({ signal });
    for (const number of senders) show(String(number.phone ?? number.id), String(number.status ?? ''));
    const sender = senders.find((n) => n.status !== 'pending_account_verification') ?? senders[0];
    if (!sender || typeof sender.phone !== 'string') throw new Error('This tenant has no sender number to send from.');
    const senderPhone = sender.phone;

    print.step(`Look up ${recipient}`, signal);
    const lookup = await client.contacts.lookup({ phone: recipient, sender_phone: senderPhone }, { signal });
    show('reachable', lookup.reachable ?? '(not reported)');

    print.step('Send a text', signal);
    const text = await client.messages.send({
      sender_phone: senderPhone,
      to_phone: recipient,
      type: 'text',
      content: 'Hello from the tenant-messaging demo!',
    });
    sent.push(text.id);
    show('message log', `#${text.id}, status ${text.status}, delivery_status ${text.delivery_status}`);

    print.step('Send an image from a file on disk (streamed)', signal);
    const image = await client.messages.send(
      {
        sender_phone: senderPhone,
        to_phone: recipient,
        type: 'image',
        content: 'Your receipt',
        media: mediaFromPath(setting.imagePath),
      },
      {
        onUploadProgress: ({ loaded, total }) =>
          progress(`uploading ${loaded} / ${total ?? '?'} bytes`, loaded === total),
      },
    );
    sent.push(image.id);
    show('message log', `#${image.id}, media_url ${image.response_payload.media_url}`);

    print.step(`Wait until message #${text.id} is read`, signal);
    const waitStarted = performance.now();
    const seconds = () => ((performance.now() - waitStarted) / 1000).toFixed(1);
    const read = await client.waitForDelivery(text.id, {
      until: 'read',
      interval: 250,
      timeout: live ? 120_000 : 15_000,
      signal,
      onUpdate: (log) =>
        progress(
          `delivery_status ${print.bold(log.delivery_status)} after ${seconds()} s`,
          log.delivery_status === 'read',
          true,
        ),
    });
    show('confirmed', print.green(`${read.delivery_status} (polled for ${seconds()} s)`));

    print.step('Latest message logs', signal);
    const page = await client.messages.list({}, { signal });
    for (const log of page.data.slice(0, 5))
      show(`#${log.id}`, `${log.message_type.padEnd(6)} ${log.delivery_status.padEnd(10)} ${log.sent_at ?? ''}`);
    show('total', page.meta?.total ?? page.data.length);

    print.step('Usage', signal);
    const usage = await client.usage({ signal });
    show('messages', field(usage, 'messages') ?? usage);

    if (setting.sandboxLanes) {
      print.step('Pacing: one message per person at a time (rateLimit.perRecipient)', signal);
      setting.sandboxLanes.set(DEMO_MIN_INTERVAL);
      try {
        const phones = { sender: senderPhone, busy: recipient, other: setting.sandboxLanes.other };
        await pacingStep(client, phones, print, stdout);
      } finally {
        setting.sandboxLanes.set(null);
      }
    }

    print.step('A deliberate error', signal);
    try {
      if (setting.keyWithoutUsage !== undefined)
        await client.withOptions({ apiKey: setting.keyWithoutUsage }).usage({ signal });
      else await client.messages.get(2_147_483_647, { signal });
    } catch (error) {
      if (!(error instanceof MessagingError) || signal.aborted) throw error;
      show(error.name, print.red(error.message));
      stdout.write(
        `${print.dim(setting.keyWithoutUsage !== undefined ? '   (a key without the usage.read scope, as your code would see it)' : '   (a log id that does not exist)')}\n`,
      );
    }

    stdout.write(`\n${print.green('done')} in ${((performance.now() - setting.started) / 1000).toFixed(1)} s\n`);
    return sent;
  } catch (error) {
    throw sent.length > 0 ? new SentThenError(sent, error) : error;
  } finally {
    print.endProgress();
  }
}

/** A dotted path into an object the spec leaves open (`tenant.name`). */
const field = (object: JsonObject, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | null)?.[key], object);

/** The story's typography: numbered headings, aligned fields, and one status line a terminal rewrites. */
function printer(stdout: NodeJS.WriteStream) {
  // Plain when stdout is no terminal, or NO_COLOR is set (colour.ts), on every Node.
  const paint = (format: StyleFormat) => (text: string) => paintOn(format, text, stdout);
  const bold = paint('bold');
  const dim = paint('dim');
  const tty = stdout.isTTY === true;
  let stepNumber = 0;
  let progressOpen = false;
  const endProgress = () => {
    if (progressOpen) stdout.write('\n');
    progressOpen = false;
  };
  return {
    bold,
    dim,
    green: paint('green'),
    red: paint('red'),
    endProgress,
    /** A numbered heading; Ctrl-C stops the story here, between two steps. */
    step(title: string, signal: AbortSignal): void {
      signal.throwIfAborted();
      stdout.write(`\n${bold(`${++stepNumber}. ${title}`)}\n`);
    },
    show(label: string, value: unknown): void {
      stdout.write(`   ${dim(`${label}:`.padEnd(16))} ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
    },
    /** Rewrites one status line in place on a terminal; elsewhere (CI logs) prints only its milestones. */
    progress(text: string, done = false, milestone = done): void {
      if (tty) {
        stdout.write(`\r\x1b[2K   ${text}${done ? '\n' : ''}`);
        progressOpen = !done;
      } else if (milestone) stdout.write(`   ${text}\n`);
    },
  };
}
