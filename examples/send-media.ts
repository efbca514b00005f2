/**
 * Send an image from a file on disk. `mediaFromPath` streams the file: it is never read into
 * memory, so a large document costs the same few megabytes as a small one.
 *
 *   node examples/send-media.ts [path-to-file]
 */
import { fileURLToPath } from 'node:url';
import { MessagingClient, mediaFromPath } from 'tenant-messaging';

const client = new MessagingClient();
const path = process.argv[2] ?? fileURLToPath(new URL('./assets/receipt.png', import.meta.url));

const log = await client.messages.send(
  {
    sender_phone: process.env.TENANT_MESSAGING_SENDER ?? '+15550001001',
    to_phone: process.env.TENANT_MESSAGING_TO ?? '+15557654321',
    type: 'image', // 'voice' and 'document' work the same way
    content: 'Your receipt', // the caption
    media: mediaFromPath(path),
  },
  { onUploadProgress: ({ loaded, total }) => console.log(`uploaded ${loaded} of ${total ?? '?'} bytes`) },
);

// media_url is an opaque managed URL: use it as given, never build storage paths from it.
console.log(`sent: message log ${log.id}, media at ${log.response_payload.media_url}`);
