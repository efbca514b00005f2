import type { MessagingClient, SendMessageParams } from 'tenant-messaging';

/** What the pacing step prints with (the story's printer). */
interface Printer {
  show(label: string, value: unknown): void;
  dim(text: string): string;
  red(text: string): string;
}

/** The gap the step keeps between two messages to one person: long enough to see, short enough to wait for. */
export const DEMO_MIN_INTERVAL = 400;

/**
 * The demo's pacing step (sandbox only): four messages, three of them to one person, sent at once
 * through a client with `rateLimit.perRecipient`. The sandbox refuses a second message to one
 * person within the interval (a 429), and retries are off: every line `sent` shows the client
 * waited instead, and the other person's message did not wait behind them.
 *
 * @example
 * ```ts
 * await pacingStep(client, { sender, busy: SANDBOX_PHONES.reads, other: SANDBOX_PHONES.neverReads }, print, process.stdout)
 * ```
 */
export async function pacingStep(
  client: MessagingClient,
  phones: { readonly sender: string; readonly busy: string; readonly other: string },
  print: Printer,
  stdout: NodeJS.WritableStream,
): Promise<void> {
  const paced = client.withOptions({ maxRetries: 0, rateLimit: { perRecipient: { minInterval: DEMO_MIN_INTERVAL } } });
  const { sender, busy, other } = phones;
  const message = (to: string, n: number): SendMessageParams => ({
    sender_phone: sender,
    to_phone: to,
    type: 'text',
    content: `Order update ${n}`,
  });
  const items = [message(busy, 1), message(busy, 2), message(other, 1), message(busy, 3)];
  print.show('sandbox', `refuses a second message to one person within ${DEMO_MIN_INTERVAL} ms (HTTP 429)`);
  const started = performance.now();
  try {
    for await (const result of paced.messages.sendMany(items, { concurrency: items.length })) {
      const at = `+${((performance.now() - started) / 1000).toFixed(2)} s`;
      const to = result.params.to_phone;
      if (result.status === 'sent') print.show(at, `#${result.log.id} to ${to}`);
      else print.show(at, print.red(`${result.status} to ${to}: ${result.error.message}`));
    }
  } finally {
    await paced.close();
  }
  stdout.write(`${print.dim('   (each person waits for their own turn; nobody waits for anyone else)')}\n`);
}
