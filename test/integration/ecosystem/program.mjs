// The one program every runtime runs (test/integration/ecosystem/runtimes.test.ts), against the packed SDK as
// a user installs it, with default options, against the sandbox on loopback. It prints one line,
// `RESULT {...}`: each step's outcome, so the test can say which step failed on which runtime.
// Settings: BASE_URL, API_KEY (full), NO_SEND_KEY (a key without the send scope), DEAD_URL (a
// loopback port nothing listens on), STALL_URL (a server that never answers), REDIRECT_URL (one
// that answers 302 to another origin), SENDER, TO, and MEDIA_PATH (a file, where the runtime has
// a file system) or NO_FILE_SYSTEM (where it has none); from `process.env`, unless a host (the
// Worker in worker.mjs) sets `globalThis.ECOSYSTEM_NO_MAIN` and calls `run(env)` itself.
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  MessagingClient,
  mediaFromPath,
  PermissionDeniedError,
  SendOutcomeUnknownError,
  ValidationError,
} from 'tenant-messaging';
import { signWebhook, verifyWebhook } from 'tenant-messaging/webhooks';
import { stepper } from './steps.mjs';

export async function run(env) {
  const { steps, step } = stepper();
  const client = new MessagingClient({ baseUrl: env.BASE_URL, apiKey: env.API_KEY });
  const text = (content) => ({ sender_phone: env.SENDER, to_phone: env.TO, type: 'text', content });
  let sent;

  await step('send text', async () => {
    sent = await client.messages.send(text('Hello from the ecosystem test'));
    return { id: sent.id, content: sent.content };
  });
  await step('send media (bytes)', async () => {
    const bytes = new Uint8Array(70_000).map((_, i) => i % 251);
    const log = await client.messages.send({
      sender_phone: env.SENDER,
      to_phone: env.TO,
      type: 'document',
      content: 'The bytes',
      media: { data: bytes, filename: 'bytes.bin', contentType: 'application/octet-stream' },
    });
    return { id: log.id, type: log.message_type, media: typeof log.response_payload?.media_url };
  });
  await step('upload progress', async () => {
    const seen = [];
    const log = await client.messages.send(
      {
        sender_phone: env.SENDER,
        to_phone: env.TO,
        type: 'document',
        media: { data: new Uint8Array(200_000), filename: 'zeros.bin', contentType: 'application/octet-stream' },
      },
      { onUploadProgress: ({ loaded }) => seen.push(loaded) },
    );
    return { id: log.id, reported: seen.length > 0, last: seen.at(-1) ?? 0 };
  });
  if (env.NO_FILE_SYSTEM) {
    await step('a path is a ValidationError', async () => {
      const error = await Promise.resolve()
        .then(() =>
          client.messages.send({
            sender_phone: env.SENDER,
            to_phone: env.TO,
            type: 'document',
            media: mediaFromPath('./receipt.pdf'),
          }),
        )
        .catch((e) => e);
      return { class: error instanceof ValidationError, message: error?.message };
    });
  }
  if (env.MEDIA_PATH) {
    await step('send media (path)', async () => {
      const log = await client.messages.send({
        sender_phone: env.SENDER,
        to_phone: env.TO,
        type: 'document',
        content: 'From a path',
        media: mediaFromPath(env.MEDIA_PATH),
      });
      return { id: log.id, type: log.message_type };
    });
  }
  await step('send media (web stream)', async () => {
    let left = 3;
    const stream = new ReadableStream({
      pull(controller) {
        if (left-- > 0) controller.enqueue(new Uint8Array(20_000).fill(left));
        else controller.close();
      },
    });
    const log = await client.messages.send({
      sender_phone: env.SENDER,
      to_phone: env.TO,
      type: 'voice',
      media: { data: stream, filename: 'note.ogg', contentType: 'audio/ogg' },
    });
    return { id: log.id, type: log.message_type };
  });
  await step('send media (Blob)', async () => {
    const log = await client.messages.send({
      sender_phone: env.SENDER,
      to_phone: env.TO,
      type: 'image',
      media: new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'dot.png', { type: 'image/png' }),
    });
    return { id: log.id, type: log.message_type };
  });
  await step('get', async () => {
    const log = await client.messages.get(sent.id);
    return { id: log.id };
  });
  await step('wait for delivery', async () => {
    const log = await client.waitForDelivery(sent.id, { interval: 50, timeout: 10_000 });
    return { status: log.delivery_status };
  });
  await step('list two pages', async () => {
    for (let i = 0; i < 16; i++) await client.messages.send(text(`Page filler ${i}`));
    const first = await client.messages.list();
    const second = await first.getNextPage();
    return { first: first.data.length, second: second?.data.length ?? 0 };
  });
  await step('403 is PermissionDeniedError', async () => {
    const denied = new MessagingClient({ baseUrl: env.BASE_URL, apiKey: env.NO_SEND_KEY });
    const error = await denied.messages.send(text('Denied')).catch((e) => e);
    return { class: error instanceof PermissionDeniedError, status: error?.status };
  });
  await step('bad params are ValidationError', async () => {
    const error = await client.messages.send({ ...text('x'), type: 'fax' }).catch((e) => e);
    return { class: error instanceof ValidationError, paths: error?.issues?.map((i) => i.path) };
  });
  await step('a timeout is APITimeoutError', async () => {
    // The server never answers: only the 300 ms deadline ends the call before the run's own limit
    // (run-in-project.ts kills it at 60 s), so no nearer bound on the time it took.
    const stalled = new MessagingClient({ baseUrl: env.STALL_URL, apiKey: env.API_KEY, timeout: 300, maxRetries: 0 });
    const error = await stalled.messages.get(1).catch((e) => e);
    await stalled.close();
    return { class: error instanceof APITimeoutError, name: error?.name };
  });
  await step('an abort rejects with its reason', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const error = await client.messages.get(sent.id, { signal: controller.signal }).catch((e) => e);
    return { reason: error?.message };
  });
  await step('a redirect is not followed', async () => {
    const moved = new MessagingClient({ baseUrl: env.REDIRECT_URL, apiKey: env.API_KEY, maxRetries: 0 });
    const error = await moved.messages.get(1).catch((e) => e);
    await moved.close();
    return { class: error instanceof APIError, status: error?.status };
  });
  await step('a dead port is never sent', async () => {
    const dead = new MessagingClient({ baseUrl: env.DEAD_URL, apiKey: env.API_KEY, maxRetries: 0 });
    const error = await dead.messages.send(text('Nowhere')).catch((e) => e);
    await dead.close();
    return {
      class: error instanceof APIConnectionError && !(error instanceof SendOutcomeUnknownError),
      name: error?.name,
      neverSent: error?.neverSent,
    };
  });
  await step('webhook signed and verified', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = JSON.stringify({
      type: 'message.read',
      timestamp: new Date().toISOString(),
      data: { id: 'o-1', status: 'read' },
    });
    const headers = await signWebhook(body, secret, { id: 'evt_eco' });
    const event = await verifyWebhook(body, new Headers(headers), secret);
    const tampered = await verifyWebhook(`${body} `, headers, secret).catch((e) => e.reason);
    return { type: event.type, tampered };
  });
  await step('close', async () => {
    await client.close();
    return true;
  });
  return steps;
}

const env = globalThis.process?.env;
if (env?.BASE_URL && !globalThis.ECOSYSTEM_NO_MAIN) {
  const steps = await run(env);
  console.log(`RESULT ${JSON.stringify(steps)}`);
}
