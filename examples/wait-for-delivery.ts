/**
 * Send a message and wait until the recipient's app confirms delivery. The API has no webhooks:
 * `waitForDelivery` polls GET /messages/{id} with a delay between polls and an overall timeout.
 *
 *   node examples/wait-for-delivery.ts
 */
import { DeliveryTimeoutError, MessagingClient } from 'tenant-messaging';

const client = new MessagingClient();

const sent = await client.messages.send({
  sender_phone: process.env.TENANT_MESSAGING_SENDER ?? '+15550001001',
  to_phone: process.env.TENANT_MESSAGING_TO ?? '+15557654321',
  type: 'text',
  content: 'Your appointment is tomorrow at 10:00.',
});

try {
  const log = await client.waitForDelivery(sent.id, {
    interval: 500, // between polls (the SDK backs off while nothing changes)
    timeout: 30_000, // for the whole wait
    until: 'delivered', // or 'read'
    onUpdate: (update) => console.log(`log ${update.id}: ${update.delivery_status}`),
  });
  console.log(`confirmed: ${log.delivery_status}`);
} catch (error) {
  if (!(error instanceof DeliveryTimeoutError)) throw error;
  // Not an failure of the send: the message is stored, its receipt is just not confirmed yet.
  console.log(`not confirmed in time; last status ${error.lastLog?.delivery_status ?? 'unknown'}`);
}
