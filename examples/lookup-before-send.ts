/**
 * Check that a recipient can receive messages before sending. The lookup's fields are the
 * service's own (the specification does not fix them): this reads `reachable` when present.
 *
 *   node examples/lookup-before-send.ts [to_phone]
 */
import { MessagingClient } from 'tenant-messaging';

const client = new MessagingClient();
const sender = process.env.TENANT_MESSAGING_SENDER ?? '+15550001001';

for (const phone of [process.argv[2] ?? process.env.TENANT_MESSAGING_TO ?? '+15557654321', '+15557650000']) {
  const lookup = await client.contacts.lookup({ phone, sender_phone: sender });
  if (lookup.reachable === false) {
    console.log(`${phone}: not reachable (${String(lookup.reason ?? 'no reason given')}), not sending`);
    continue;
  }
  const log = await client.messages.send({ sender_phone: sender, to_phone: phone, type: 'text', content: 'Hello!' });
  console.log(`${phone}: reachable, sent as log ${log.id}`);
}
