/**
 * Send a text message.
 *
 *   TENANT_MESSAGING_BASE_URL=https://acme.example.com TENANT_MESSAGING_API_KEY=... node examples/send-text.ts
 *
 * TENANT_MESSAGING_SENDER and TENANT_MESSAGING_TO pick the sending number and the recipient;
 * their defaults are phones of the local sandbox (`npx tenant-messaging-cli sandbox`).
 */
import { MessagingClient } from 'tenant-messaging';

const client = new MessagingClient(); // reads TENANT_MESSAGING_BASE_URL and TENANT_MESSAGING_API_KEY

const log = await client.messages.send({
  sender_phone: process.env.TENANT_MESSAGING_SENDER ?? '+15550001001',
  to_phone: process.env.TENANT_MESSAGING_TO ?? '+15557654321',
  type: 'text',
  content: 'Your order #1042 has shipped.',
});

// `status: 'sent'` means stored by the service; delivery is tracked separately (see wait-for-delivery.ts).
console.log(`sent: message log ${log.id}, status ${log.status}, delivery_status ${log.delivery_status}`);
