/**
 * `npm run demo`: the whole story of the SDK, start to finish. With no configuration it starts
 * the local sandbox in this process (a real HTTP server on 127.0.0.1) and runs against it. With
 * TENANT_MESSAGING_BASE_URL and TENANT_MESSAGING_API_KEY set it runs against that tenant instead,
 * and then sends only to the recipient given with `--to`.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type JsonObject, type MessageLog, MessagingClient, MessagingError, mediaFromPath } from 'tenant-messaging';
import { SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';

const tty = process.stdout.isTTY === true;
const paint = (code: number) => (text: string) => (tty ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint(1);
const dim = paint(2);
const green = paint(32);
const red = paint(31);

let stepNumber = 0;
function step(title: string): void {
  console.log(`\n${bold(`${++stepNumber}. ${title}`)}`);
}
function show(label: string, value: unknown): void {
  console.log(`   ${dim(`${label}:`.padEnd(16))} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}
/** Rewrites one status line in place on a terminal; elsewhere (CI logs) prints only `done` lines. */
function progress(text: string, done = false, milestone = done): void {
  if (tty) process.stdout.write(`\r\x1b[2K   ${text}${done ? '\n' : ''}`);
  else if (milestone) console.log(`   ${text}`);
}
const field = (object: JsonObject, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | null)?.[key], object);

const { values: args } = parseArgs({ options: { to: { type: 'string' } } });
const live = Boolean(process.env.TENANT_MESSAGING_BASE_URL && process.env.TENANT_MESSAGING_API_KEY);
if (live && !args.to) {
  console.error('Against a real tenant the demo sends only to a recipient you name: npm run demo -- --to +15551234567');
  process.exit(2);
}

const started = performance.now();
const sandbox = live ? undefined : await startSandbox();
const tenant = sandbox?.tenants.acme;
const client = tenant
  ? new MessagingClient({ baseUrl: tenant.baseUrl, apiKey: tenant.keys.full })
  : new MessagingClient();
const recipient = args.to ?? SANDBOX_PHONES.reads;

try {
  console.log(
    bold('tenant-messaging demo'),
    dim(live ? `against ${client.baseUrl}` : `against the local sandbox at ${sandbox?.url}`),
  );

  step('Who am I');
  const me = await client.me();
  show('tenant', `${field(me, 'tenant.name') ?? '?'} (${field(me, 'tenant.slug') ?? '?'})`);
  show('key scopes', field(me, 'api_key.scopes') ?? '(not reported)');

  step('Subscription');
  const subscription = await client.subscription();
  show('status', subscription.status ?? '(not reported)');
  show('plan', field(subscription, 'plan.name') ?? '(not reported)');

  step('Sender numbers');
  const senders = await client.senderNumbers.list();
  for (const number of senders) show(String(number.phone ?? number.id), String(number.status ?? ''));
  const sender = senders.find((n) => n.status !== 'pending_account_verification') ?? senders[0];
  if (!sender || typeof sender.phone !== 'string') throw new Error('This tenant has no sender number to send from.');
  const senderPhone = sender.phone;

  step(`Look up ${recipient}`);
  const lookup = await client.contacts.lookup({ phone: recipient, sender_phone: senderPhone });
  show('reachable', lookup.reachable ?? '(not reported)');

  step('Send a text');
  const text = await client.messages.send({
    sender_phone: senderPhone,
    to_phone: recipient,
    type: 'text',
    content: 'Hello from the tenant-messaging demo!',
  });
  show('message log', `#${text.id}, status ${text.status}, delivery_status ${text.delivery_status}`);

  step('Send an image from a file on disk (streamed)');
  const image = await client.messages.send(
    {
      sender_phone: senderPhone,
      to_phone: recipient,
      type: 'image',
      content: 'Your receipt',
      media: mediaFromPath(fileURLToPath(new URL('./assets/receipt.png', import.meta.url))),
    },
    {
      onUploadProgress: ({ loaded, total }) =>
        progress(`uploading ${loaded} / ${total ?? '?'} bytes`, loaded === total),
    },
  );
  show('message log', `#${image.id}, media_url ${image.response_payload.media_url}`);

  step(`Wait until message #${text.id} is read`);
  const waitStarted = performance.now();
  const seconds = () => ((performance.now() - waitStarted) / 1000).toFixed(1);
  const read: MessageLog = await client.waitForDelivery(text.id, {
    until: 'read',
    interval: 250,
    timeout: live ? 120_000 : 15_000,
    onUpdate: (log) =>
      progress(
        `delivery_status ${bold(log.delivery_status)} after ${seconds()} s`,
        log.delivery_status === 'read',
        true,
      ),
  });
  show('confirmed', green(`${read.delivery_status} (polled for ${seconds()} s)`));

  step('Latest message logs');
  const page = await client.messages.list();
  for (const log of page.data.slice(0, 5))
    show(`#${log.id}`, `${log.message_type.padEnd(6)} ${log.delivery_status.padEnd(10)} ${log.sent_at ?? ''}`);
  show('total', page.meta?.total ?? page.data.length);

  step('Usage');
  const usage = await client.usage();
  show('messages', field(usage, 'messages') ?? usage);

  step('A deliberate error');
  try {
    if (tenant) await client.withOptions({ apiKey: tenant.keys.noUsage }).usage();
    else await client.messages.get(2_147_483_647);
  } catch (error) {
    if (!(error instanceof MessagingError)) throw error;
    show(error.name, red(error.message));
    console.log(
      dim(
        tenant
          ? '   (a key without the usage.read scope, as your code would see it)'
          : '   (a log id that does not exist)',
      ),
    );
  }

  console.log(`\n${green('done')} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} finally {
  await client.close();
  await sandbox?.close();
}
