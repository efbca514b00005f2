/**
 * One upload in a fresh process, so its memory baseline is its own:
 * `node --expose-gc upload-child.mjs <sdk|raw> <server url> <big file> <warm-up file>`.
 * It warms the code path up with a small file (modules loaded, JIT warm), then samples RSS every
 * ~10 ms while the big file streams, and prints `{ ms, baselineRss, peakRss, peakAboveBaseline }`.
 */
import { Readable } from 'node:stream';
import { API_KEY, RAW_HEADERS, SENDER_PHONE, TO_PHONE } from './fixtures.mjs';

const [mode, url, bigFile, warmFile] = process.argv.slice(2);
if (!url || !bigFile || !warmFile || (mode !== 'sdk' && mode !== 'raw')) {
  throw new Error('usage: upload-child.mjs <sdk|raw> <url> <big file> <warm-up file>');
}
const fields = { sender_phone: SENDER_PHONE, to_phone: TO_PHONE, type: 'document', content: 'bench upload' };

/** @type {(file: string) => Promise<unknown>} */
let upload;
if (mode === 'sdk') {
  const { MessagingClient, mediaFromPath } = await import('../dist/index.js');
  const client = new MessagingClient({ baseUrl: url, apiKey: API_KEY, timeout: 120_000 });
  upload = (file) => client.messages.send(/** @type {any} */ ({ ...fields, media: mediaFromPath(file) }));
} else {
  const { request } = await import('undici');
  const { FormData } = await import('formdata-node');
  const { fileFromPath } = await import('formdata-node/file-from-path');
  const { FormDataEncoder } = await import('form-data-encoder');
  upload = async (file) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    form.set('media', await fileFromPath(file));
    const encoder = new FormDataEncoder(form);
    const { statusCode, body } = await request(`${url}/api/v1/messages`, {
      method: 'POST',
      headers: { ...RAW_HEADERS, ...encoder.headers },
      body: Readable.from(encoder),
    });
    const json = await body.json();
    if (statusCode !== 201) throw new Error(`raw upload answered ${statusCode}`);
    return json;
  };
}

await upload(warmFile);
const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
gc?.();
await new Promise((resolve) => setTimeout(resolve, 100));
const baselineRss = process.memoryUsage.rss();
let peakRss = baselineRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 10);
const started = performance.now();
await upload(bigFile);
const ms = performance.now() - started;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage.rss());
process.stdout.write(
  `${JSON.stringify({ mode, ms, baselineRss, peakRss, peakAboveBaseline: peakRss - baselineRss })}\n`,
);
process.exit(0);
