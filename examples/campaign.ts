/**
 * A campaign: send an order update to many recipients under the tenant's rate limit, reconcile
 * the sends whose outcome is unknown, follow their deliveries as they are sent, print a summary.
 *
 *   node examples/campaign.ts [count]
 */
import { MessagingClient, type SendMessageParams } from 'tenant-messaging';

// The client's rate gate is adaptive by default: a 429 pauses every send until the service allows more.
const client = new MessagingClient();
const sender = process.env.TENANT_MESSAGING_SENDER ?? '+15550001001';
const count = Number(process.argv[2] ?? 25);

/** The campaign's rows, read lazily: a database cursor works the same way. */
function* orders(): Generator<SendMessageParams> {
  for (let i = 1; i <= count; i++) {
    const recipient = `+1555765${String(4000 + i).padStart(4, '0')}`;
    yield { sender_phone: sender, to_phone: recipient, type: 'text', content: `Order #${1000 + i} has shipped.` };
  }
}

const summary = { sent: 0, reconciled: 0, failed: 0, unknown: 0, delivered: 0, read: 0, pending: 0, untracked: 0 };

/** Sends every order, 4 at a time, and yields the ids of the ones that went out. */
async function* sentIds(): AsyncGenerator<number> {
  for await (const result of client.messages.sendMany(orders(), { concurrency: 4 })) {
    if (result.status === 'sent') {
      summary.sent++;
      if (result.reconciled) summary.reconciled++; // its answer was lost, its log was found
      yield result.log.id;
    } else if (result.status === 'failed') {
      summary.failed++;
      console.error(`order ${result.index}: ${result.error.message.split('\n')[0]}`);
    } else {
      summary.unknown++; // may have gone out: decide before sending it again
      console.error(`order ${result.index}: outcome unknown, not sent again`);
    }
  }
}

// Tracking starts as soon as the first send is accepted: sending and polling overlap.
const final = new Map<number, string>();
for await (const update of client.trackDeliveries(sentIds(), { until: 'read', interval: 200, timeout: 2_000 })) {
  final.set(update.id, update.status);
}
for (const status of final.values()) {
  if (status === 'read') summary.read++;
  else if (status === 'delivered') summary.delivered++;
  else if (status === 'failed') summary.untracked++;
  else summary.pending++;
}
console.log(
  `campaign: ${count} orders, ${summary.sent} sent (${summary.reconciled} reconciled), ${summary.failed} failed, ${summary.unknown} unknown; ` +
    `${summary.read} read, ${summary.delivered} delivered, ${summary.pending} not confirmed in time`,
);
await client.close();
